/**
 * A desktop app's licensing, end to end, as a publisher would embed it (Electron main process, a Tauri Node
 * sidecar, or a plain Node app): activate once, then a LicenseSession checks at start, sends heartbeats on the
 * server's interval, falls back to the signed token (or a license file) when offline, and tells the app when the
 * verdict changes. Features are gated from signed data only. Each agent run holds an execution lease
 * (`runExecution`): the plan caps how many run at once across all of the license's machines, and a refusal's message
 * is shown as the SDK gives it.
 *
 * Run it against a local server (`npm start`) with `main.ts`; apps/api/test/license-client.test.ts runs it too.
 */
import {
  type Execution,
  ExecutionLimitError,
  FileStateStore,
  type LicenseCheck,
  LicenseClient,
  LicenseManager,
  LicenseSession,
  type StateStore,
  type TrustedKey,
} from "@flotilla/license-client";

export interface DesktopAppOptions {
  server: string;
  licenseKey: string;
  /** Where the activation lives (default ~/.config/flotilla/license.json). */
  store?: StateStore;
  /** The keys pinned in this build are used unless given (tests and local servers give theirs). */
  trustedKeys?: readonly TrustedKey[];
  /** Development builds and tests only: play another machine. */
  machineId?: () => string;
  log?: (line: string) => void;
}

export interface DesktopApp {
  session: LicenseSession;
  /** What the UI would show: one line per verdict change. */
  events: string[];
  /** How many agents may run at once under this license, right now. */
  agentSlots(): number;
  canShareMemory(): boolean;
  /**
   * Runs one agent task under an execution lease (ended when the task settles). At the plan's limit the task does not
   * run: the refusal's message is shown and returned. The task should stop when `execution.signal` aborts.
   */
  runAgent<T>(
    feature: string,
    task: (execution: Execution) => Promise<T>,
  ): Promise<{ ran: true; result: T } | { ran: false; refusal: string }>;
  /** Quit: stop the heartbeats; with `release`, free this machine's slot for another computer. */
  quit(options?: { release?: boolean }): Promise<void>;
}

export async function startDesktopApp(options: DesktopAppOptions): Promise<DesktopApp> {
  const log = options.log ?? ((line: string) => console.log(line));
  const client = new LicenseClient({
    baseUrl: options.server,
    ...(options.trustedKeys ? { trustedKeys: options.trustedKeys } : {}),
  });
  const manager = new LicenseManager({
    client,
    store: options.store ?? new FileStateStore(),
    ...(options.trustedKeys ? { trustedKeys: options.trustedKeys } : {}),
    ...(options.machineId ? { machineId: options.machineId } : {}),
    appVersion: "example-1.0.0",
  });

  if (!(await manager.state())) {
    const activation = await manager.activate(options.licenseKey, { machineName: "Example desktop app" });
    if (!activation.activated)
      throw new Error(`Activation refused: ${activation.result.code} — ${activation.result.message}`);
    log(`activated as ${activation.state.machine?.display_id ?? activation.state.machine_id}`);
  }

  const events: string[] = [];
  const session = new LicenseSession(manager);
  session.onStatusChange((status: LicenseCheck) => {
    const line = status.valid
      ? `license valid (${status.mode}, ${status.license?.tier ?? "?"} tier)`
      : `license not valid: ${status.code ?? status.reason} — ${status.message}`;
    events.push(line);
    log(line);
  });
  session.onError((error) => log(`licensing error: ${(error as Error).message}`));
  await session.start();

  return {
    session,
    events,
    agentSlots: () => session.maxConcurrentExecutions ?? Number.POSITIVE_INFINITY,
    canShareMemory: () => session.hasFeature("sharedMemory"),
    async runAgent(feature, task) {
      try {
        const result = await manager.runExecution(
          async (execution) => {
            log(`agent running (${execution.mode}, execution ${execution.id})`);
            return task(execution);
          },
          { feature, onHeartbeatError: (error) => log(`execution heartbeat failed: ${(error as Error).message}`) },
        );
        // Counted by the server when its lease ended: nothing to report (an offline run would be reported as usage).
        return { ran: true, result };
      } catch (error) {
        if (!(error instanceof ExecutionLimitError)) throw error;
        // The contract's message, then who holds the running executions.
        const holders = error.running.map((holder) => holder.machineName ?? holder.displayId).join(", ");
        const refusal = `${error.message}${holders ? ` Running on: ${holders}.` : ""}`;
        events.push(refusal);
        log(refusal);
        return { ran: false, refusal };
      }
    },
    async quit({ release = false } = {}) {
      session.stop();
      if (release) {
        const result = await manager.deactivate();
        log(result.released ? "slot freed for another computer" : "activation forgotten");
      }
    },
  };
}
