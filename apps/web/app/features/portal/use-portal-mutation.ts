/**
 * Every change the portal and the console make goes through this hook (decision 0055), so a button behaves the
 * same everywhere:
 * - one intent, one request: a second trigger while one is running (a double-click, a key held down) joins the
 *   running one instead of sending another, and is answered by the same result. TanStack's `isPending` reaches the
 *   screen a tick after the click, too late to disable the button against the second click of a double-click; the
 *   guard here is synchronous.
 * - offline, it fails at once with the offline message (the HTTP client refuses to send, and the query client never
 *   pauses a change to replay it later).
 */
import {
  type MutateOptions,
  type UseMutationOptions,
  type UseMutationResult,
  useMutation,
} from "@tanstack/react-query";
import { useCallback, useRef } from "react";

export function usePortalMutation<TData = unknown, TVariables = void>(
  options: UseMutationOptions<TData, Error, TVariables>,
): UseMutationResult<TData, Error, TVariables> {
  const mutation = useMutation<TData, Error, TVariables>(options);
  const running = useRef<Promise<TData> | null>(null);
  const { mutateAsync: send } = mutation;

  const mutateAsync = useCallback(
    (variables: TVariables, callbacks?: MutateOptions<TData, Error, TVariables>): Promise<TData> => {
      if (running.current) return running.current;
      const sent = send(variables, callbacks);
      running.current = sent;
      const done = () => {
        if (running.current === sent) running.current = null;
      };
      sent.then(done, done);
      return sent;
    },
    [send],
  );
  const mutate = useCallback(
    (variables: TVariables, callbacks?: MutateOptions<TData, Error, TVariables>) => {
      mutateAsync(variables, callbacks).catch(() => undefined);
    },
    [mutateAsync],
  );

  return {
    ...mutation,
    mutate,
    mutateAsync,
    isPending: mutation.isPending || running.current !== null,
  } as UseMutationResult<TData, Error, TVariables>;
}
