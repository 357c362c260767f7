/**
 * flotilla-license: the CLI that plays the desktop app. `main(argv, io)` runs one command and resolves to
 * the exit code (0 ok, 1 license not valid, 2 usage error, 3 network or server error); it never calls
 * process.exit, so tests run it in-process.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { BRAND } from "@flotilla/contracts/brand";
import { ActivationRequestFileSchema, FEATURE_NAME } from "@flotilla/contracts/licensing";
import { SEAT_RULES } from "@flotilla/contracts/seats";
import { LICENSE_CODE_MESSAGES, LICENSE_CODES, type LicenseCode } from "@flotilla/contracts/tiers";
import { DEFAULT_BASE_URL, LicenseClient, type LicenseClientOptions, type LicenseFeatures } from "./client";
import {
  LicenseApiError,
  LicenseInputError,
  LicenseNetworkError,
  LicenseProtocolError,
  LicenseStateError,
  LicenseTokenError,
  NotActivatedError,
} from "./errors";
import { parseLicenseFile } from "./files";
import { type LicenseCheck, LicenseManager } from "./license-manager";
import { getMachineId } from "./machine-id";
import { defaultStatePath, FileStateStore, type StoredLicense, writeFileAtomic } from "./state";
import { BUILD_KIND, type BuildKind, PINNED_KEYS, type TrustedKey } from "./trusted-keys";

export const EXIT = { ok: 0, invalid: 1, usage: 2, unavailable: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface CliIO {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  env?: Record<string, string | undefined>;
  /** Overrides for the HTTP client (tests inject fetch or a no-op sleep). */
  client?: Pick<LicenseClientOptions, "fetch" | "sleep" | "timeoutMs" | "retries">;
  /** The clock (tests). */
  now?: () => Date;
  /**
   * Tests only (in process, never from the command line or the environment): the keys to trust and the kind
   * of build to behave as, instead of what this build pinned.
   */
  build?: { kind: BuildKind; trustedKeys: readonly TrustedKey[] };
}

const BIN = "flotilla-license";
const COMMANDS = [
  "activate",
  "validate",
  "status",
  "heartbeat",
  "verify",
  "features",
  "usage",
  "deactivate",
  "checkout",
  "request",
  "exchange",
  "import",
  "help",
] as const;
type Command = (typeof COMMANDS)[number];

const OPTIONS = {
  server: { type: "string" },
  state: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  "machine-id": { type: "string" },
  name: { type: "string" },
  feature: { type: "string" },
  local: { type: "boolean" },
  ttl: { type: "string" },
  out: { type: "string" },
} as const;

/** Which command accepts which command-specific option. */
const COMMAND_OPTIONS: Partial<Record<Command, readonly string[]>> = {
  activate: ["machine-id", "name"],
  validate: ["machine-id"],
  status: ["machine-id"],
  verify: ["machine-id"],
  usage: ["machine-id", "feature"],
  heartbeat: ["machine-id"],
  features: ["machine-id"],
  deactivate: ["machine-id", "local"],
  checkout: ["machine-id", "ttl", "out"],
  request: ["machine-id", "name", "out"],
  exchange: ["ttl", "out"],
  import: ["machine-id"],
};

export const HELP = `${BIN}: activate and check a ${BRAND.name} license on this machine, as the desktop app does.

Usage: ${BIN} <command> [options]

Commands:
  activate <key>        Validate <key> for this machine (binding it if a slot is free) and store
                        the signed token for offline use
      --name NAME       Machine name shown in the dashboard (default: the hostname)
  validate              Validate online; fails when the server cannot be reached
  status                Validate online, or offline from the stored token when the server is unreachable
  verify                Check the stored token offline only (no network)
  usage <executions>    Report executions (a whole number, at least 1)
      --feature NAME    What they were for, in lower-case-hyphenated words
  heartbeat             Send a heartbeat (keeps this machine's slot; offline from the token if unreachable)
  features              What this license entitles the app to, from signed data only
  deactivate            Free this machine's slot on the server and forget the local activation
      --local           Only forget locally (the slot stays taken until the machine goes silent)
  checkout              Fetch a license file for working offline longer than the token (signed, encrypted)
      --ttl 30d         How long it lasts (hours "h" or days "d"; default 30d, at most 90d)
      --out FILE        Also write it to FILE
  request <key>         On a machine with no network: write an activation request file
      --out FILE        Where to write it (default: standard output)
  exchange <request>    On a computer with a network: send a request file, write the license file
      --out FILE        Where to write it (default: standard output)   --ttl as for checkout
  import <file> <key>   On the offline machine: install the license file that answered its request

  Development builds only: --machine-id ID (env FLOTILLA_MACHINE_ID) plays another machine on the commands
  that act for this machine. A production build always computes this machine's id.

Options:
  --server URL          Licensing server (env FLOTILLA_SERVER; default: the server used at activation,
                        else ${DEFAULT_BASE_URL})
  --state PATH          State file (env FLOTILLA_LICENSE_STATE; default ~/.config/flotilla/license.json)
  --json                Machine-readable output on stdout
  -h, --help            Show this help

Exit codes: 0 ok, 1 license not valid (or not activated), 2 usage error, 3 network or server error.
`;

class UsageError extends Error {}

export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  const env = io.env ?? process.env;
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\nRun "${BIN} --help" for usage.\n`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  const json = values.json === true;
  const [name, ...args] = positionals;

  if (values.help || name === "help") {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  if (name === undefined) {
    io.stderr.write(HELP);
    return EXIT.usage;
  }
  const out = new Output(io, json, name, io.now ?? (() => new Date()));
  if (!(COMMANDS as readonly string[]).includes(name)) {
    return out.fail(EXIT.usage, "usage_error", `Unknown command "${name}". Run "${BIN} --help" for usage.`);
  }
  const command = name as Command;

  const build = io.build ?? { kind: BUILD_KIND, trustedKeys: PINNED_KEYS };
  try {
    for (const option of ["machine-id", "name", "feature", "local", "ttl", "out"] as const) {
      if (values[option] !== undefined && !COMMAND_OPTIONS[command]?.includes(option)) {
        throw new UsageError(`--${option} does not apply to "${command}".`);
      }
    }
    // A user-chosen machine id would let a copied activation run on any computer: development builds only.
    const overrideId = values["machine-id"] ?? (env.FLOTILLA_MACHINE_ID?.trim() || undefined);
    if (overrideId !== undefined && build.kind === "production") {
      throw new UsageError("--machine-id (FLOTILLA_MACHINE_ID) is not available in a production build.");
    }
    const machineId = () => (overrideId !== undefined ? getMachineId({ override: overrideId }) : getMachineId({ env }));
    const store = new FileStateStore(values.state ? resolve(values.state) : defaultStatePath(env));
    const serverUrl = async (): Promise<string> =>
      values.server ??
      env.FLOTILLA_SERVER ??
      (command === "activate" ? undefined : (await store.read().catch(() => null))?.server_url) ??
      DEFAULT_BASE_URL;
    const manager = async (offlineOnly = false) =>
      new LicenseManager({
        client: new LicenseClient({
          ...io.client,
          baseUrl: offlineOnly ? DEFAULT_BASE_URL : await serverUrl(),
          trustedKeys: build.trustedKeys,
        }),
        store,
        machineId,
        trustedKeys: build.trustedKeys,
        ...(io.now ? { now: io.now } : {}),
      });

    switch (command) {
      case "activate": {
        const key = expectArgs(command, args, ["<key>"])[0]!;
        const m = await manager();
        const activation = await m.activate(key, {
          ...(values.name !== undefined ? { machineName: values.name } : {}),
        });
        if (!activation.activated) {
          const { result } = activation;
          return out.invalid(result.code, result.message, {
            activated: false,
            code: result.code,
            message: result.message,
            license: result.license,
            machine: result.machine,
          });
        }
        const { state, tokenExpiresAt } = activation;
        if (json) {
          return out.json(EXIT.ok, {
            ok: true,
            activated: true,
            code: activation.result.code,
            message: activation.result.message,
            license_key: state.license_key,
            machine_id: state.machine_id,
            license: state.license,
            machine: state.machine,
            server: state.server_url,
            token_expires_at: tokenExpiresAt.toISOString(),
            state_path: store.path,
          });
        }
        out.line(`Activated on this machine (${state.server_url}).`);
        out.table([
          ["License", maskKey(state.license_key)],
          ["Tier", state.license ? `${state.license.tier} (${state.license.status})` : "unknown"],
          ["Machine", describeMachine(state.machine_id, state.machine)],
          ["Offline", `works without the server until ${out.when(tokenExpiresAt)}`],
          ["State", store.path],
        ]);
        return EXIT.ok;
      }
      case "validate":
      case "status":
      case "verify": {
        expectArgs(command, args, []);
        const m = await manager(command === "verify");
        const check =
          command === "validate"
            ? await m.validate()
            : command === "status"
              ? await m.check()
              : await m.verifyOffline();
        return out.check(check);
      }
      case "usage": {
        const count = expectArgs(command, args, ["<executions>"])[0]!;
        if (!/^\d+$/.test(count) || Number(count) < 1) {
          throw new UsageError(`<executions> must be a whole number of at least 1 (got "${count}").`);
        }
        const executions = Number(count);
        if (values.feature !== undefined && !FEATURE_NAME.test(values.feature.trim().toLowerCase())) {
          throw new UsageError(`--feature must be lower-case words joined by hyphens (got "${values.feature}").`);
        }
        const m = await manager();
        const result = await m.report(executions, values.feature);
        if (json) {
          return out.json(EXIT.ok, { ok: true, executions, feature: values.feature ?? null, ...result });
        }
        out.line(
          `Recorded ${plural(result.recorded, "execution")}${values.feature ? ` for ${values.feature}` : ""}. ` +
            `This month: ${plural(result.current_month_executions, "execution")}.`,
        );
        return EXIT.ok;
      }
      case "heartbeat": {
        expectArgs(command, args, []);
        return out.check(await (await manager()).heartbeat());
      }
      case "features": {
        expectArgs(command, args, []);
        const m = await manager(true);
        const features = await m.entitlements();
        if (json) return out.json(features ? EXIT.ok : EXIT.invalid, { ok: Boolean(features), features });
        if (!features) {
          out.line("No valid signed license is held: nothing is licensed. Run status to check online.");
          return EXIT.invalid;
        }
        out.table([
          [
            "Executions",
            features.maxConcurrentExecutions === null
              ? "unlimited at once"
              : `${features.maxConcurrentExecutions} at once`,
          ],
          ["Memory", features.sharedMemory ? "shared" : "not shared"],
          ["Backups", features.backups ? "yes" : "no"],
          ["Embedding", features.embeddingModels ? "models included" : "not included"],
        ]);
        return EXIT.ok;
      }
      case "deactivate": {
        expectArgs(command, args, []);
        const result = await (await manager(values.local === true)).deactivate({ localOnly: values.local === true });
        if (json) return out.json(EXIT.ok, { ok: true, ...result, removed: result.forgotten, state_path: store.path });
        if (!result.forgotten) {
          out.line(`Nothing to deactivate: no activation in ${store.path}.`);
        } else if (result.released) {
          out.line(
            `Freed this machine's slot and forgot the activation (${plural(result.deactivationsLeft ?? 0, "deactivation")} left today).`,
          );
        } else {
          out.line(
            values.local
              ? `Forgot the activation stored in ${store.path}. The slot stays taken until the machine goes silent or you remove it in the dashboard.`
              : `Forgot the activation stored in ${store.path} (the server no longer counted this machine).`,
          );
        }
        return EXIT.ok;
      }
      case "checkout": {
        expectArgs(command, args, []);
        const ttl = values.ttl === undefined ? undefined : parseTtl(values.ttl);
        const { file, expiresAt } = await (await manager()).checkout(ttl);
        if (values.out) await writeFileAtomic(resolve(values.out), `${JSON.stringify(file, null, 2)}\n`);
        if (json) return out.json(EXIT.ok, { ok: true, expires_at: expiresAt.toISOString(), file: values.out ?? null });
        out.line(`License file stored for offline use until ${out.when(expiresAt)}.`);
        if (values.out) out.line(`  Written to ${resolve(values.out)}`);
        return EXIT.ok;
      }
      case "request": {
        const key = expectArgs(command, args, ["<key>"])[0]!;
        const request = (await manager(true)).activationRequest(key, values.name);
        const text = `${JSON.stringify(request, null, 2)}\n`;
        if (values.out) {
          await writeFileAtomic(resolve(values.out), text);
          out.line(
            `Activation request written to ${resolve(values.out)}: carry it to a computer with a network and run "${BIN} exchange".`,
          );
        } else io.stdout.write(text);
        return EXIT.ok;
      }
      case "exchange": {
        const path = expectArgs(command, args, ["<request-file>"])[0]!;
        const parsed = ActivationRequestFileSchema.safeParse(JSON.parse(await readFile(resolve(path), "utf8")));
        if (!parsed.success) throw new UsageError(`${path} is not an activation request file.`);
        const client = new LicenseClient({ ...io.client, baseUrl: await serverUrl(), trustedKeys: build.trustedKeys });
        const ttl = values.ttl === undefined ? undefined : parseTtl(values.ttl);
        const answer = await client.exchangeActivationRequest(parsed.data, ttl ? { ttlSeconds: ttl } : {});
        if (!answer.license_file) {
          return out.invalid(answer.code, answer.message, { code: answer.code, message: answer.message });
        }
        const text = `${JSON.stringify(answer.license_file, null, 2)}\n`;
        if (values.out) {
          await writeFileAtomic(resolve(values.out), text);
          out.line(`License file written to ${resolve(values.out)}: carry it back and run "${BIN} import".`);
        } else io.stdout.write(text);
        return EXIT.ok;
      }
      case "import": {
        const [path, key] = expectArgs(command, args, ["<license-file>", "<key>"]);
        const file = parseLicenseFile(await readFile(resolve(path!), "utf8"));
        if (!file) throw new UsageError(`${path} is not a license file.`);
        return out.check(await (await manager(true)).importLicenseFile(file, key!));
      }
      case "help":
        io.stdout.write(HELP);
        return EXIT.ok;
    }
  } catch (error) {
    return out.error(error);
  }
}

/** "30d", "12h" or seconds, as a whole number of seconds. */
function parseTtl(value: string): number {
  const match = /^(\d+)([dh]?)$/.exec(value.trim());
  if (!match) throw new UsageError(`--ttl must look like 30d or 12h (got "${value}").`);
  const n = Number(match[1]);
  const seconds = match[2] === "d" ? n * 86_400 : match[2] === "h" ? n * 3_600 : n;
  if (seconds < 3_600 || seconds > SEAT_RULES.licenseFileMaxTtlSeconds) {
    throw new UsageError(`--ttl must be between 1h and ${SEAT_RULES.licenseFileMaxTtlSeconds / 86_400}d.`);
  }
  return seconds;
}

function expectArgs(command: Command, args: string[], names: string[]): string[] {
  if (args.length !== names.length) {
    const expected = names.length ? ` ${names.join(" ")}` : "";
    throw new UsageError(
      `Usage: ${BIN} ${command}${expected}${args.length > names.length ? " (too many arguments)" : ""}`,
    );
  }
  return args;
}

class Output {
  constructor(
    readonly io: CliIO,
    readonly jsonMode: boolean,
    readonly command: string,
    readonly now: () => Date,
  ) {}

  line(text: string) {
    this.io.stdout.write(`${text}\n`);
  }

  table(rows: Array<[string, string]>) {
    for (const [label, value] of rows) this.line(`  ${label.padEnd(9)} ${value}`);
  }

  json(code: number, body: Record<string, unknown>): number {
    this.io.stdout.write(`${JSON.stringify({ command: this.command, ...body }, null, 2)}\n`);
    return code;
  }

  when(date: Date): string {
    return `${formatDate(date)} (${relative(date.getTime() - this.now().getTime())})`;
  }

  /** The server said the license is not valid: code and the contract's message. */
  invalid(code: LicenseCode, serverMessage: string, body: Record<string, unknown>): number {
    if (this.jsonMode) return this.json(EXIT.invalid, { ok: false, ...body });
    this.io.stderr.write(`${code}: ${LICENSE_CODE_MESSAGES[code]}\n`);
    if (serverMessage && serverMessage !== LICENSE_CODE_MESSAGES[code]) this.io.stderr.write(`  ${serverMessage}\n`);
    return EXIT.invalid;
  }

  fail(code: number, type: string, message: string, extra: Record<string, unknown> = {}): number {
    if (this.jsonMode) return this.json(code, { ok: false, error: { type, message, ...extra } });
    this.io.stderr.write(`${message}\n`);
    return code;
  }

  check(check: LicenseCheck): number {
    const exit = check.valid ? EXIT.ok : EXIT.invalid;
    if (this.jsonMode) {
      return this.json(exit, {
        ok: check.valid,
        mode: check.mode,
        valid: check.valid,
        code: check.code,
        reason: check.reason,
        message: check.message,
        license_key: check.licenseKey,
        machine_id: check.machineId,
        license: check.license,
        machine: check.machine,
        token_expires_at: check.tokenExpiresAt?.toISOString() ?? null,
        last_validated_at: check.lastValidatedAt?.toISOString() ?? null,
        ...(check.offlineCause ? { offline_cause: check.offlineCause } : {}),
        ...(check.warning ? { warning: check.warning } : {}),
      });
    }
    const how =
      check.mode === "online"
        ? "online (the server answered)"
        : `offline${check.offlineCause ? ` (server unreachable: ${check.offlineCause})` : " (stored token only)"}`;
    this.line(check.valid ? `License valid, checked ${how}.` : `License NOT valid, checked ${how}.`);
    const rows: Array<[string, string]> = [["License", maskKey(check.licenseKey)]];
    if (check.license) rows.push(...describeLicense(check.license));
    rows.push(["Machine", describeMachine(check.machineId, check.machine)]);
    rows.push([
      "Offline",
      check.tokenExpiresAt
        ? `${check.tokenExpiresAt.getTime() > this.now().getTime() ? "token valid until" : "token expired"} ${this.when(check.tokenExpiresAt)}`
        : "no valid offline token",
    ]);
    rows.push([
      "Checked",
      check.lastValidatedAt ? `last online validation ${formatDate(check.lastValidatedAt)}` : "never online",
    ]);
    this.table(rows);
    if (check.warning) this.io.stderr.write(`Warning: ${check.warning}\n`);
    if (!check.valid) {
      if (check.code && isLicenseCode(check.code)) {
        this.io.stderr.write(`${check.code}: ${LICENSE_CODE_MESSAGES[check.code]}\n`);
      } else {
        this.io.stderr.write(`Offline check failed (${check.reason}): ${check.message}\n`);
      }
    }
    return exit;
  }

  error(error: unknown): number {
    if (error instanceof UsageError) return this.fail(EXIT.usage, "usage_error", error.message);
    if (error instanceof LicenseInputError) {
      return this.fail(EXIT.usage, "invalid_input", error.message, error.field ? { field: error.field } : {});
    }
    if (error instanceof LicenseStateError) {
      return this.fail(EXIT.usage, "state_error", error.message, { path: error.path });
    }
    if (error instanceof NotActivatedError) {
      return this.fail(
        EXIT.invalid,
        "not_activated",
        `${error.message.replace("run activate", `run ${BIN} activate`)}`,
        {
          code: "NOT_ACTIVATED",
        },
      );
    }
    if (error instanceof LicenseApiError) {
      const extra = { status: error.status, ...(error.code ? { code: error.code } : {}) };
      if (error.retryable) {
        const wait = error.retryAfterMs !== undefined ? ` Try again in ${Math.ceil(error.retryAfterMs / 1000)} s.` : "";
        return this.fail(
          EXIT.unavailable,
          "server_error",
          `The licensing server failed: ${error.message}.${wait}`,
          extra,
        );
      }
      if (error.code && isLicenseCode(error.code)) {
        const text = `${error.code}: ${LICENSE_CODE_MESSAGES[error.code]}`;
        return this.fail(
          EXIT.invalid,
          "license_invalid",
          error.message && error.message !== LICENSE_CODE_MESSAGES[error.code] ? `${text}\n  ${error.message}` : text,
          extra,
        );
      }
      if ([400, 413, 415, 422].includes(error.status)) {
        return this.fail(EXIT.usage, "rejected_input", `The server rejected the request: ${error.message}`, extra);
      }
      return this.fail(EXIT.invalid, "license_refused", `The server refused: ${error.message}`, extra);
    }
    if (error instanceof LicenseNetworkError) return this.fail(EXIT.unavailable, "network_error", error.message);
    if (error instanceof LicenseProtocolError || error instanceof LicenseTokenError) {
      return this.fail(EXIT.unavailable, "server_error", error.message);
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return this.fail(EXIT.unavailable, "unexpected_error", `Unexpected error: ${message}`);
  }
}

function isLicenseCode(code: string): code is LicenseCode {
  return (LICENSE_CODES as readonly string[]).includes(code);
}

function describeLicense(license: StoredLicense): Array<[string, string]> {
  return [
    ["Tier", license.tier],
    ["Status", license.status],
    ["Expires", license.expires_at ? formatDate(new Date(license.expires_at)) : "never"],
    ["Machines", `up to ${license.max_machines}`],
    ["Features", describeFeatures(license.features)],
  ];
}

function describeFeatures(features: LicenseFeatures): string {
  const concurrency =
    features.maxConcurrentExecutions === null
      ? "unlimited concurrent executions"
      : `${plural(features.maxConcurrentExecutions, "concurrent execution")}`;
  const flags = [
    `shared memory ${features.sharedMemory ? "yes" : "no"}`,
    `backups ${features.backups ? "yes" : "no"}`,
    `AI models ${features.embeddingModels ? "yes" : "no"}`,
  ];
  return [concurrency, ...flags].join(", ");
}

function describeMachine(machineId: string, machine: { display_id: string; is_primary: boolean } | null): string {
  const id = machineId.length > 24 ? `${machineId.slice(0, 20)}…` : machineId;
  if (!machine) return id;
  return `${id} (display id ${machine.display_id}${machine.is_primary ? ", primary" : ""})`;
}

/** FLOT-ABCDE-…-VWXYZ: enough to recognise a key on screen without showing it whole. */
export function maskKey(key: string): string {
  const groups = key.split("-");
  if (groups.length >= 4) return `${groups[0]}-${groups[1]}-…-${groups[groups.length - 1]}`;
  return key.length > 8 ? `${key.slice(0, 4)}…${key.slice(-4)}` : key;
}

function formatDate(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function relative(ms: number): string {
  const past = ms < 0;
  let seconds = Math.floor(Math.abs(ms) / 1000);
  const days = Math.floor(seconds / 86_400);
  seconds -= days * 86_400;
  const hours = Math.floor(seconds / 3_600);
  seconds -= hours * 3_600;
  const minutes = Math.floor(seconds / 60);
  const text = days > 0 ? `${days}d ${hours}h` : hours > 0 ? `${hours}h ${minutes}m` : `${Math.max(minutes, 0)}m`;
  return past ? `${text} ago` : `in ${text}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function processIO(): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}
