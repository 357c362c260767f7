/** Portal actions the spec lists but does not build yet (spec section 2): they only say so. */
export function announceComingSoon(feature: string): void {
  window.alert(`${feature} is coming soon!`);
}
