/** Button looks shared by <button> and <Link>; one place for sizes and variants. */
type Variant = "primary" | "secondary" | "ghost" | "danger";
type Size = "sm" | "md" | "lg";

const base =
  "inline-flex items-center justify-center gap-2 rounded-lg font-medium transition-colors disabled:cursor-not-allowed disabled:opacity-60 whitespace-nowrap";
const variants: Record<Variant, string> = {
  primary: "bg-brand text-white shadow-sm shadow-indigo-900/20 hover:brightness-110",
  secondary: "border border-border bg-bg-elevated text-fg hover:bg-bg-subtle",
  ghost: "text-fg-muted hover:text-fg hover:bg-bg-subtle",
  /** Destructive and not undoable from here (revoke, remove): red, so it is never clicked as the default. */
  danger: "bg-red-700 text-white shadow-sm shadow-red-900/20 hover:bg-red-800 dark:bg-red-600 dark:hover:bg-red-500",
};
const sizes: Record<Size, string> = {
  sm: "h-9 px-3.5 text-sm",
  md: "h-10 px-4 text-sm",
  lg: "h-12 px-6 text-base",
};

export function buttonClass(variant: Variant = "primary", size: Size = "md", extra = ""): string {
  return `${base} ${variants[variant]} ${sizes[size]} ${extra}`.trim();
}
