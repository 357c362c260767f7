/**
 * What a route tells the root layout (docs/decisions/0040). A content page (`STATIC_PAGE`) is prerendered without
 * the React Router runtime: no <Scripts/>, so nothing hydrates, and its interactive parts are islands
 * (app/islands). The portal's routes say nothing and stay the full React app.
 */
export interface RouteHandle {
  hydrate?: boolean;
}

export const STATIC_PAGE: RouteHandle = { hydrate: false };

export function isStaticPage(handles: readonly unknown[]): boolean {
  return handles.some((handle) => (handle as RouteHandle | undefined)?.hydrate === false);
}
