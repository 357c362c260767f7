import { BRAND } from "@flotilla/contracts";

/** Three sails in formation: the brand mark. Decorative next to the wordmark. */
export function LogoMark({ className = "size-7" }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={className} aria-hidden="true" focusable="false">
      <defs>
        <linearGradient id="flotilla-mark" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#0ea5e9" />
          <stop offset="1" stopColor="#6366f1" />
        </linearGradient>
      </defs>
      <rect width="32" height="32" rx="8" fill="url(#flotilla-mark)" />
      <path d="M9 21 L13 9 L13 21 Z" fill="#fff" opacity="0.95" />
      <path d="M15 21 L19.5 7 L19.5 21 Z" fill="#fff" />
      <path d="M21.5 21 L25 12 L25 21 Z" fill="#fff" opacity="0.8" />
      <path d="M7 23.5 Q16 27 25.5 23.5" stroke="#fff" strokeWidth="1.6" fill="none" strokeLinecap="round" />
    </svg>
  );
}

export function Logo() {
  return (
    <span className="inline-flex items-center gap-2 font-semibold tracking-tight text-fg">
      <LogoMark />
      <span className="text-[1.05rem]">{BRAND.name}</span>
    </span>
  );
}
