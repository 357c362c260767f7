/** Emails never reach the logs in full: "jane.doe@example.com" → "j***@example.com". */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "***";
  return `${email[0]}***${email.slice(at)}`;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
