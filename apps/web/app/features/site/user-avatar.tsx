import { UserRound } from "lucide-react";
import { useState } from "react";

/** The customer's picture, or a neutral icon when there is none or it fails to load. */
export function UserAvatar({ src, size = "sm" }: { src: string | null | undefined; size?: "sm" | "lg" }) {
  const [failed, setFailed] = useState(false);
  const box = size === "lg" ? "size-12" : "size-7";
  const imageClass = `${box} shrink-0 rounded-full object-cover`;
  if (!src || failed) {
    return (
      // On a prerendered page the account island swaps this icon for the picture (app/islands/account.ts).
      <span
        className={`grid ${box} shrink-0 place-items-center rounded-full bg-bg-subtle text-fg-muted`}
        aria-hidden="true"
        data-account-avatar
        data-img-class={imageClass}
      >
        <UserRound className={size === "lg" ? "size-6" : "size-4"} />
      </span>
    );
  }
  return <img src={src} alt="" referrerPolicy="no-referrer" onError={() => setFailed(true)} className={imageClass} />;
}
