import { AlertCircle, CheckCircle2, TriangleAlert } from "lucide-react";
import type { ReactNode } from "react";

type Tone = "error" | "warning" | "success";

const TONES: Record<Tone, { className: string; Icon: typeof AlertCircle }> = {
  error: {
    className: "border-red-300 bg-red-50 text-red-800 dark:border-red-900 dark:bg-red-950/60 dark:text-red-200",
    Icon: AlertCircle,
  },
  warning: {
    className:
      "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-900 dark:bg-amber-950/50 dark:text-amber-200",
    Icon: TriangleAlert,
  },
  success: {
    className:
      "border-emerald-300 bg-emerald-50 text-emerald-800 dark:border-emerald-900 dark:bg-emerald-950/50 dark:text-emerald-200",
    Icon: CheckCircle2,
  },
};

/**
 * The portal's message strip (the login page's red banner, plus amber and green). Errors announce
 * themselves as alerts; put success and warning strips inside a persistent `aria-live` region when
 * they should be announced (a live region inserted together with its text is often not read).
 */
export function Banner({ tone, title, children }: { tone: Tone; title?: string; children: ReactNode }) {
  const { className, Icon } = TONES[tone];
  return (
    <div
      role={tone === "error" ? "alert" : undefined}
      className={`flex items-start gap-2 rounded-lg border px-3 py-2.5 text-sm ${className}`}
    >
      <Icon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <div className="min-w-0">
        {title && <p className="font-medium">{title}</p>}
        <div className="break-words">{children}</div>
      </div>
    </div>
  );
}
