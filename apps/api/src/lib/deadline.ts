/** A wait on a peer that did not end in time (decision 0037: every wait on a peer is bounded). */
export class PeerTimeoutError extends Error {
  constructor(
    readonly peer: string,
    readonly ms: number,
  ) {
    super(`${peer} did not answer within ${ms} ms`);
  }
}

/**
 * `work`, or a PeerTimeoutError after `ms`. The work itself is not cancelled: use this where the work is bounded
 * anyway and the caller must not wait as long (readiness), or together with something that tears it down.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, peer: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new PeerTimeoutError(peer, ms)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
