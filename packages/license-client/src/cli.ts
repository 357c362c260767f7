/**
 * flotilla-license: the CLI that plays the desktop app. `main(argv, io)` runs one command and resolves to
 * the exit code (0 ok, 1 license not valid, 2 usage error, 3 network or server error, 4 execution refused at the
 * plan's limit; `executions run` exits with its command's code); it never calls process.exit, so tests run it
 * in-process.
 */
import { spawn } from "node:child_process";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { BRAND } from "@flotilla/contracts/brand";
import { EXECUTION_RULES, executionExpiresAfterSeconds } from "@flotilla/contracts/executions";
import { ActivationRequestFileSchema, FEATURE_NAME } from "@flotilla/contracts/licensing";
import {
  generateReleaseSigningKey,
  loadReleaseSigningKey,
  minisignPublicKeyFile,
} from "@flotilla/contracts/release-signing";
import {
  RELEASE_ARCHES,
  RELEASE_CHANNELS,
  RELEASE_PLATFORMS,
  type Release,
  type ReleaseArch,
  type ReleaseChannel,
  type ReleasePlatform,
  SEMVER_PATTERN,
  type Update,
} from "@flotilla/contracts/releases";
import { formatDuration, SEAT_RULES } from "@flotilla/contracts/seats";
import { LICENSE_CODE_MESSAGES, LICENSE_CODES, type LicenseCode } from "@flotilla/contracts/tiers";
import { DEFAULT_BASE_URL, LicenseClient, type LicenseClientOptions, type LicenseFeatures } from "./client";
import {
  ExecutionEndedError,
  ExecutionLimitError,
  LicenseApiError,
  LicenseInputError,
  LicenseNetworkError,
  LicenseProtocolError,
  LicenseStateError,
  LicenseTokenError,
  NotActivatedError,
} from "./errors";
import type { Execution } from "./executions";
import { parseLicenseFile } from "./files";
import { type LicenseCheck, LicenseManager } from "./license-manager";
import { getMachineId } from "./machine-id";
import { OperatorClient } from "./operator";
import { formatBytes, type ProgressStream, progressBar } from "./progress";
import { defaultStatePath, FileStateStore, type StoredLicense, writeFileAtomic } from "./state";
import { BUILD_KIND, type BuildKind, PINNED_KEYS, type TrustedKey } from "./trusted-keys";
import { UpdateError } from "./updates";

export const EXIT = { ok: 0, invalid: 1, usage: 2, unavailable: 3, limit: 4 } as const;
/** `executions run`: the command could not be started (as a shell says "command not found"). */
const EXIT_CANNOT_RUN = 127;
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
  "executions",
  "update",
  "release",
  "help",
] as const;
const EXECUTION_COMMANDS = ["start", "heartbeat", "list", "end", "run"] as const;
const UPDATE_COMMANDS = ["check", "download"] as const;
const RELEASE_COMMANDS = ["keygen", "publish", "yank", "promote"] as const;
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
  current: { type: "string" },
  platform: { type: "string" },
  arch: { type: "string" },
  channel: { type: "string" },
  to: { type: "string" },
  "allow-downgrade": { type: "boolean" },
  "release-key": { type: "string", multiple: true },
  version: { type: "string" },
  notes: { type: "string" },
  artifact: { type: "string", multiple: true },
  key: { type: "string" },
  reason: { type: "string" },
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
  executions: ["machine-id", "feature"],
  update: ["machine-id", "current", "platform", "arch", "channel", "to", "allow-downgrade", "release-key"],
  release: ["out", "version", "channel", "notes", "artifact", "key", "reason"],
};
const CHECKED_OPTIONS = [
  "machine-id",
  "name",
  "feature",
  "local",
  "ttl",
  "out",
  ...new Set(Object.values(COMMAND_OPTIONS).flat()),
] as const;

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
  executions start      Start an execution (a lease on one of the license's concurrent executions);
      --feature NAME    prints its id and expiry. It expires ${formatDuration(executionExpiresAfterSeconds())} after its last heartbeat:
                        send "executions heartbeat <id>" every ${formatDuration(EXECUTION_RULES.heartbeatIntervalSeconds)}, then "executions end <id>"
  executions heartbeat <id>   Keep a lease alive (revives it if it expired and a slot is free)
  executions list       What runs on the license now, on every machine
  executions end <id>   End a lease: its slot is free at once, and it counts as one execution
  executions run [--feature NAME] -- <command> [args...]
                        Run <command> under a lease, with heartbeats while it runs; end the lease when it
                        exits, and exit with its code (128 + n when killed by signal n, 127 if it cannot start)

  update check          Is there a newer build for this app? (the activated license asks)
      --current VERSION The running app's version (env FLOTILLA_APP_VERSION)
      --platform P --arch A   Default: this computer's (macos|windows|linux, x86_64|aarch64|universal)
      --channel C       stable (default), or beta, rc, alpha, dev when the license is admitted to it
  update download       Check, then download the update, resuming an interrupted download, verify its
                        SHA-256/512 and both signatures, and only then write it (options as for check)
      --to PATH         A file, or a folder to put it in (default: its name, here)
      --release-key K   The release public key the app embeds (repeatable; text or a file; env
                        FLOTILLA_RELEASE_PUBLIC_KEYS, comma-separated)
      --allow-downgrade Install a build that is not newer than --current

Publishing (the operator; FLOTILLA_OPERATOR_TOKEN holds an operator token from the console):
  release keygen        Write a new release key pair (never overwrites one) and print the public key
      --out DIR         as Sparkle, Tauri and the server want it (default folder: here)
  release publish --version V --channel C --notes FILE --artifact platform/arch=PATH ...
                        Sign each artifact with the release private key (--key FILE, env
                        FLOTILLA_RELEASE_SIGNING_KEY), upload it resumably, and publish the release;
                        run again after an interruption, it resumes
  release yank <version|id> [--reason TEXT]   Withdraw a published release: no longer offered or downloadable
  release promote <version|id> --channel C    Move a published release to another channel (beta → stable)

  Development builds only: --machine-id ID (env FLOTILLA_MACHINE_ID) plays another machine on the commands
  that act for this machine. A production build always computes this machine's id.

Options:
  --server URL          Licensing server (env FLOTILLA_SERVER; default: the server used at activation,
                        else ${DEFAULT_BASE_URL})
  --state PATH          State file (env FLOTILLA_LICENSE_STATE; default ~/.config/flotilla/license.json)
  --json                Machine-readable output on stdout
  -h, --help            Show this help

Exit codes: 0 ok, 1 license not valid (or not activated, or an update refused: tampered, yanked, a downgrade),
2 usage error, 3 network or server error,
4 execution refused: the license already runs its plan's number of executions (the holders are printed).
`;

class UsageError extends Error {}

export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  const env = io.env ?? process.env;
  // `executions run … -- <command> [args…]`: what follows "--" is the command's, not ours.
  const dash = argv.indexOf("--");
  const own = dash === -1 ? [...argv] : argv.slice(0, dash);
  const commandLine = dash === -1 ? null : argv.slice(dash + 1);
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: own, options: OPTIONS, allowPositionals: true, strict: true });
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
    for (const option of new Set(CHECKED_OPTIONS)) {
      if (values[option as keyof typeof values] !== undefined && !COMMAND_OPTIONS[command]?.includes(option)) {
        throw new UsageError(`--${option} does not apply to "${command}".`);
      }
    }
    if (commandLine !== null && command !== "executions") {
      throw new UsageError(`"--" only goes with executions run.`);
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
            machine_name: state.machine_name,
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
          ["Machine", describeMachine(state.machine_id, state.machine, state.machine_name)],
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
      case "executions": {
        const [sub, ...rest] = args;
        if (!sub || !(EXECUTION_COMMANDS as readonly string[]).includes(sub)) {
          throw new UsageError(`Usage: ${BIN} executions ${EXECUTION_COMMANDS.join("|")} (see --help)`);
        }
        if (commandLine !== null && sub !== "run") throw new UsageError(`"--" only goes with executions run.`);
        if (values.feature !== undefined && sub !== "start" && sub !== "run") {
          throw new UsageError(`--feature does not apply to "executions ${sub}".`);
        }
        const m = await manager();
        const identity = async () => {
          const state = await m.state();
          if (!state) throw new NotActivatedError("This machine is not activated: run activate <license key> first.");
          if (state.machine_id !== machineId()) {
            throw new NotActivatedError(
              "This activation was made on another machine: activate the license on this one.",
            );
          }
          return { license_key: state.license_key, machine_id: state.machine_id };
        };
        switch (sub) {
          case "start": {
            expectArgs(command, rest, [], "start");
            const who = await identity();
            const answer = await m.client.startExecution({
              ...who,
              ...(values.feature !== undefined ? { feature: values.feature } : {}),
            });
            const { execution } = answer;
            if (json) return out.json(EXIT.ok, { ok: true, ...answer });
            out.line(`Started execution ${execution.id}${execution.feature ? ` (${execution.feature})` : ""}.`);
            out.table([
              ["Running", describeRunning(answer.running, answer.limit)],
              ["Expires", `${out.when(new Date(execution.expires_at))} unless a heartbeat follows`],
            ]);
            out.line(
              `Send "${BIN} executions heartbeat ${execution.id}" every ${formatDuration(execution.heartbeat_interval_seconds)}, ` +
                `and "${BIN} executions end ${execution.id}" when it is done.`,
            );
            return EXIT.ok;
          }
          case "heartbeat": {
            const id = expectArgs(command, rest, ["<id>"], "heartbeat")[0]!;
            const answer = await m.client.executionHeartbeat(id, await identity());
            if (json) return out.json(EXIT.ok, { ok: true, ...answer });
            out.line(
              `${answer.revived ? "Revived" : "Kept"} execution ${id} until ${out.when(new Date(answer.execution.expires_at))} ` +
                `(${describeRunning(answer.running, answer.limit)}).`,
            );
            return EXIT.ok;
          }
          case "end": {
            const id = expectArgs(command, rest, ["<id>"], "end")[0]!;
            const answer = await m.client.endExecution(id, await identity());
            if (json) return out.json(EXIT.ok, { ok: true, id, ...answer });
            out.line(
              `Execution ${id} ended (${answer.end_reason.replaceAll("_", " ")}, ${formatDate(new Date(answer.ended_at))}).`,
            );
            return EXIT.ok;
          }
          case "list": {
            expectArgs(command, rest, [], "list");
            const listed = await m.client.runningExecutions(await identity());
            if (json) return out.json(EXIT.ok, { ok: true, ...listed });
            out.line(`${describeRunning(listed.running.length, listed.limit)} on this license.`);
            for (const lease of listed.running) {
              const where = lease.this_machine ? "this machine" : describeHolder(lease.machine_name, lease.display_id);
              out.line(
                `  ${lease.id || "(another machine's)"}  ${where}${lease.feature ? `, ${lease.feature}` : ""}, since ` +
                  `${formatDate(new Date(lease.started_at))}, expires ${out.when(new Date(lease.expires_at))}`,
              );
            }
            return EXIT.ok;
          }
          case "run": {
            expectArgs(command, rest, [], "run -- <command> [args...]");
            if (!commandLine || commandLine.length === 0) {
              throw new UsageError(`Usage: ${BIN} executions run [--feature NAME] -- <command> [args...]`);
            }
            return await runUnderLease(io, out, m, commandLine, values.feature);
          }
        }
        return EXIT.usage;
      }
      case "update": {
        const [sub, ...rest] = args;
        if (!sub || !(UPDATE_COMMANDS as readonly string[]).includes(sub)) {
          throw new UsageError(`Usage: ${BIN} update ${UPDATE_COMMANDS.join("|")} (see --help)`);
        }
        expectArgs(command, rest, [], sub);
        if (sub === "check" && (values.to !== undefined || values["allow-downgrade"] !== undefined)) {
          throw new UsageError(`--to and --allow-downgrade go with "update download".`);
        }
        const releasePublicKeys = sub === "download" ? await releaseKeysFrom(values["release-key"], env) : [];
        const client = new LicenseClient({ ...io.client, baseUrl: await serverUrl(), trustedKeys: build.trustedKeys });
        const m = new LicenseManager({
          client,
          store,
          machineId,
          trustedKeys: build.trustedKeys,
          releasePublicKeys,
          ...(io.now ? { now: io.now } : {}),
        });
        const target = updateTarget(values, env);
        const update = await m.checkForUpdate(target);
        if (!update) {
          if (json) return out.json(EXIT.ok, { ok: true, update: null, current_version: target.currentVersion });
          out.line(
            `No update: ${target.currentVersion} is the newest build for ${target.platform}/${target.arch} (${target.channel}).`,
          );
          return EXIT.ok;
        }
        if (sub === "check") {
          if (json) return out.json(EXIT.ok, { ok: true, update, current_version: target.currentVersion });
          out.line(`Update available: ${update.version} (${update.channel}), you have ${target.currentVersion}.`);
          out.table(describeUpdate(update));
          out.line(`Run "${BIN} update download" to fetch and verify it.`);
          return EXIT.ok;
        }
        const dest = await destinationFor(values.to, update.artifact.filename);
        const bar = progressBar(io.stderr as ProgressStream, `Downloading ${update.artifact.filename}`);
        const done = await m.downloadUpdate(update, dest, {
          allowDowngrade: values["allow-downgrade"] === true,
          onProgress: (p) => (json ? undefined : bar.update(p.received, p.total)),
        });
        if (json) return out.json(EXIT.ok, { ok: true, update, path: done.path, resumed_from: done.resumedFrom });
        out.line(`Downloaded and verified ${update.version} (SHA-256, SHA-512, Ed25519 and minisign signatures).`);
        out.table([
          ["File", done.path],
          ["Size", formatBytes(done.size)],
          ...(done.resumedFrom > 0
            ? ([["Resumed", `from ${formatBytes(done.resumedFrom)}`]] as Array<[string, string]>)
            : []),
        ]);
        return EXIT.ok;
      }
      case "release": {
        const [sub, ...rest] = args;
        if (!sub || !(RELEASE_COMMANDS as readonly string[]).includes(sub)) {
          throw new UsageError(`Usage: ${BIN} release ${RELEASE_COMMANDS.join("|")} (see --help)`);
        }
        return await runRelease(sub as (typeof RELEASE_COMMANDS)[number], rest, values, env, io, out, {
          serverUrl: values.server ?? env.FLOTILLA_SERVER ?? DEFAULT_BASE_URL,
          json,
        });
      }
      case "help":
        io.stdout.write(HELP);
        return EXIT.ok;
    }
  } catch (error) {
    return out.error(error);
  }
}

type Values = Record<string, string | boolean | string[] | undefined>;

const PLATFORM_OF: Partial<Record<NodeJS.Platform, ReleasePlatform>> = {
  darwin: "macos",
  win32: "windows",
  linux: "linux",
};
const ARCH_OF: Partial<Record<string, ReleaseArch>> = { x64: "x86_64", arm64: "aarch64" };

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback?: T): T {
  const chosen = value ?? fallback;
  if (chosen === undefined || !(allowed as readonly string[]).includes(chosen)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(", ")}${value ? ` (got "${value}")` : ""}.`);
  }
  return chosen as T;
}

/** What `update check|download` asks about: this app's version, platform and arch (flags override). */
function updateTarget(values: Values, env: Record<string, string | undefined>) {
  const currentVersion = (values.current as string | undefined) ?? env.FLOTILLA_APP_VERSION;
  if (!currentVersion || !SEMVER_PATTERN.test(currentVersion.trim())) {
    throw new UsageError(
      `--current must be the running app's semantic version, like 1.4.0 (env FLOTILLA_APP_VERSION)${currentVersion ? ` (got "${currentVersion}")` : ""}.`,
    );
  }
  return {
    currentVersion: currentVersion.trim(),
    platform: oneOf(
      "platform",
      values.platform as string | undefined,
      RELEASE_PLATFORMS,
      PLATFORM_OF[process.platform],
    ),
    arch: oneOf("arch", values.arch as string | undefined, RELEASE_ARCHES, ARCH_OF[process.arch]),
    channel: oneOf("channel", values.channel as string | undefined, RELEASE_CHANNELS, "stable"),
  };
}

/** The release public keys to verify downloads with: --release-key (text or a file), FLOTILLA_RELEASE_PUBLIC_KEYS. */
async function releaseKeysFrom(flags: string[] | undefined, env: Record<string, string | undefined>) {
  const given = flags?.length ? flags : (env.FLOTILLA_RELEASE_PUBLIC_KEYS ?? "").split(",");
  const keys: string[] = [];
  for (const item of given.map((value) => value.trim()).filter(Boolean)) {
    const file = await stat(item).then(
      (s) => s.isFile(),
      () => false,
    );
    const text = file ? await readFile(item, "utf8") : item;
    // A key file as keygen writes it: comments (#) and the minisign public key.
    keys.push(
      text
        .split(/\r?\n/)
        .filter((line) => !line.startsWith("#"))
        .join("\n")
        .trim(),
    );
  }
  if (keys.length === 0) {
    throw new UsageError(
      `No release public key to verify the download with: pass --release-key (what "${BIN} release keygen" printed, or its release-public-key.txt) or set FLOTILLA_RELEASE_PUBLIC_KEYS.`,
    );
  }
  return keys;
}

/** --to: a folder (the artifact's own name inside it) or a file; default the artifact's name here. */
async function destinationFor(to: string | undefined, filename: string): Promise<string> {
  if (!to) return resolve(filename);
  const isFolder = await stat(to).then(
    (s) => s.isDirectory(),
    () => to.endsWith("/"),
  );
  return isFolder ? join(resolve(to), filename) : resolve(to);
}

function describeUpdate(update: Update): Array<[string, string]> {
  return [
    ["Version", `${update.version} (${update.channel}), published ${formatDate(new Date(update.published_at))}`],
    [
      "File",
      `${update.artifact.filename}, ${formatBytes(update.artifact.size)} (${update.artifact.platform}/${update.artifact.arch})`,
    ],
    ["SHA-256", update.artifact.sha256],
  ];
}

/** `release keygen|publish|yank|promote`: the operator's side, with FLOTILLA_OPERATOR_TOKEN. */
async function runRelease(
  sub: "keygen" | "publish" | "yank" | "promote",
  rest: string[],
  values: Values,
  env: Record<string, string | undefined>,
  io: CliIO,
  out: Output,
  context: { serverUrl: string; json: boolean },
): Promise<number> {
  const allowed: Record<typeof sub, string[]> = {
    keygen: ["out"],
    publish: ["version", "channel", "notes", "artifact", "key"],
    yank: ["reason"],
    promote: ["channel"],
  };
  for (const option of ["out", "version", "channel", "notes", "artifact", "key", "reason"]) {
    if (values[option] !== undefined && !allowed[sub].includes(option)) {
      throw new UsageError(`--${option} does not apply to "release ${sub}".`);
    }
  }
  if (sub === "keygen") {
    expectArgs("release", rest, [], sub);
    const folder = resolve((values.out as string | undefined) ?? ".");
    await mkdir(folder, { recursive: true });
    const key = generateReleaseSigningKey();
    const publicFile = minisignPublicKeyFile(key.publicKey);
    const privatePath = join(folder, "release-signing-key.pem");
    const publicPath = join(folder, "release-public-key.txt");
    try {
      // Never overwrite a key: builds signed with it could no longer be verified by a new one.
      await writeFile(privatePath, key.pem, { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") {
        throw new UsageError(`${privatePath} already exists: keygen never overwrites a release key.`);
      }
      throw error;
    }
    await writeFile(
      publicPath,
      [
        `# Sparkle SUPublicEDKey: ${key.publicKey.sparkle}`,
        `# Tauri pubkey: ${publicFile.tauri}`,
        publicFile.text,
      ].join("\n"),
    );
    const body = {
      ok: true,
      private_key_path: privatePath,
      public_key_path: publicPath,
      key_id: key.publicKey.keyId,
      sparkle_public_ed_key: key.publicKey.sparkle,
      tauri_pubkey: publicFile.tauri,
      minisign_public_key: key.publicKey.minisign,
    };
    if (context.json) return out.json(EXIT.ok, body);
    out.line(`Release key pair written (key id ${key.publicKey.keyId}).`);
    out.table([
      ["Private", `${privatePath} (keep it secret: the CI's FLOTILLA_RELEASE_SIGNING_KEY)`],
      ["Public", publicPath],
    ]);
    out.line("");
    out.line("Sparkle (Info.plist SUPublicEDKey):");
    out.line(`  ${key.publicKey.sparkle}`);
    out.line("Tauri (tauri.conf.json plugins.updater.pubkey):");
    out.line(`  ${publicFile.tauri}`);
    out.line("Server (RELEASE_PUBLIC_KEYS) and the SDK (releasePublicKeys), the minisign public key:");
    out.line(`  ${key.publicKey.minisign}`);
    return EXIT.ok;
  }
  const token = env.FLOTILLA_OPERATOR_TOKEN?.trim();
  if (!token) {
    throw new UsageError(
      `Set FLOTILLA_OPERATOR_TOKEN to an operator token (the console's Releases tab creates one; it is shown once).`,
    );
  }
  const client = new OperatorClient({
    baseUrl: context.serverUrl,
    token,
    ...(io.client?.fetch ? { fetch: io.client.fetch } : {}),
  });
  const say = (release: Release, verb: string) => {
    if (context.json) return out.json(EXIT.ok, { ok: true, release });
    out.line(`${verb} ${release.version} (${release.channel}, ${release.state}).`);
    return EXIT.ok;
  };
  if (sub === "yank") {
    const [which] = expectArgs("release", rest, ["<version|id>"], sub);
    const release = await client.findRelease(which!);
    return say(await client.yank(release.id, values.reason as string | undefined), "Yanked");
  }
  if (sub === "promote") {
    const [which] = expectArgs("release", rest, ["<version|id>"], sub);
    const channel = oneOf("channel", values.channel as string | undefined, RELEASE_CHANNELS);
    const release = await client.findRelease(which!);
    return say(await client.promote(release.id, channel), "Promoted");
  }
  expectArgs("release", rest, [], sub);
  const version = ((values.version as string | undefined) ?? "").trim().replace(/^v/, "");
  if (!SEMVER_PATTERN.test(version)) {
    throw new UsageError(
      `--version must be a semantic version, like 1.4.0 or 2.0.0-beta.3${version ? ` (got "${version}")` : ""}.`,
    );
  }
  const channel: ReleaseChannel = oneOf("channel", values.channel as string | undefined, RELEASE_CHANNELS, "stable");
  const targets = ((values.artifact as string[] | undefined) ?? []).map((spec) => {
    const match = /^([a-z]+)\/([a-z0-9_]+)=(.+)$/.exec(spec);
    if (!match) throw new UsageError(`--artifact must look like macos/universal=PATH (got "${spec}").`);
    return {
      platform: oneOf("artifact platform", match[1], RELEASE_PLATFORMS),
      arch: oneOf("artifact arch", match[2], RELEASE_ARCHES),
      path: resolve(match[3]!),
    };
  });
  if (targets.length === 0) throw new UsageError("release publish needs at least one --artifact platform/arch=PATH.");
  const notes = values.notes ? await readFile(resolve(values.notes as string), "utf8") : "";
  const keySetting = (values.key as string | undefined) ?? env.FLOTILLA_RELEASE_SIGNING_KEY;
  if (!keySetting) {
    throw new UsageError(
      `No release signing key: pass --key FILE (what "${BIN} release keygen" wrote) or set FLOTILLA_RELEASE_SIGNING_KEY.`,
    );
  }
  const keyText = keySetting.includes("BEGIN")
    ? keySetting
    : await readFile(resolve(keySetting), "utf8").catch(() => keySetting);
  let signingKey: ReturnType<typeof loadReleaseSigningKey>;
  try {
    signingKey = loadReleaseSigningKey(keyText, env.FLOTILLA_RELEASE_KEY_ID || null);
  } catch (error) {
    throw new UsageError(`The release signing key cannot be read: ${(error as Error).message}.`);
  }
  const release = await client.draft({ version, channel, notes });
  if (!context.json)
    out.line(
      `Draft ${release.version} (${release.channel}) ready; signing and uploading ${targets.length === 1 ? "1 artifact" : `${targets.length} artifacts`}.`,
    );
  for (const target of targets) {
    const bar = progressBar(io.stderr as ProgressStream, `Uploading ${target.platform}/${target.arch}`);
    const artifact = await client.addArtifact(release, target, signingKey, (p) =>
      context.json ? undefined : bar.update(p.sent, p.total),
    );
    if (!context.json)
      out.line(
        `  ${target.platform}/${target.arch}  ${artifact.filename}, ${formatBytes(artifact.size)}, verified by the server`,
      );
  }
  return say(await client.publish(release.id), "Published");
}

/** How long a command asked to stop (SIGTERM) has before it is killed (SIGKILL). */
export const STOP_GRACE_MS = 10_000;

/**
 * `executions run`: holds a lease (heartbeats and a watch in the background) while the command runs, ends it when the
 * command exits, and answers the command's exit code. Ctrl-C reaches the command from the terminal; SIGTERM and SIGHUP
 * sent to the CLI are passed on to it. If the lease is stopped meanwhile (its owner or an admin ended it, the device
 * lost its slot, the license was suspended), the watch hears it within about a second and the command is asked to stop
 * (SIGTERM, then SIGKILL after STOP_GRACE_MS); once it has exited, the lease is ended, which frees its slot.
 */
async function runUnderLease(
  io: CliIO,
  out: Output,
  manager: LicenseManager,
  commandLine: readonly string[],
  feature: string | undefined,
): Promise<number> {
  const execution = await manager.startExecution({
    ...(feature !== undefined ? { feature } : {}),
    // This command ends it itself once the command has exited (an exit handler would end it under the command's feet).
    endOnExit: false,
    onHeartbeatError: (error) =>
      io.stderr.write(
        `${BIN}: a heartbeat did not reach the licensing server (${(error as Error).message}); trying again.\n`,
      ),
  });
  const [file, ...args] = commandLine as [string, ...string[]];
  const inherit = io.stdout === process.stdout && io.stderr === process.stderr;
  const forward = ["SIGTERM", "SIGHUP"] as const;
  const onSignal = (signal: NodeJS.Signals) => child.kill(signal);
  const onInterrupt = () => {
    // The terminal sends Ctrl-C to the command too: wait for it to exit.
  };
  const child = spawn(file, args, { stdio: ["inherit", inherit ? "inherit" : "pipe", inherit ? "inherit" : "pipe"] });
  child.stdout?.on("data", (chunk: Buffer) => io.stdout.write(chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => io.stderr.write(chunk.toString("utf8")));
  for (const signal of forward) process.on(signal, onSignal);
  process.on("SIGINT", onInterrupt);
  const onLost = () => {
    const reason = execution.signal.reason;
    if (reason instanceof ExecutionEndedError && reason.code === "COMPLETED") return;
    const why = reason instanceof ExecutionEndedError ? `${reason.code}: ${reason.message}` : String(reason);
    io.stderr.write(`${BIN}: the execution's lease is no longer held (${why}). Stopping the command.\n`);
    child.kill("SIGTERM");
    // A command that ignores SIGTERM is killed: the lease's slot stays taken until it has stopped.
    const kill = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
    kill.unref();
    child.once("close", () => clearTimeout(kill));
  };
  execution.signal.addEventListener("abort", onLost, { once: true });
  let outcome: { code: number | null; signal: NodeJS.Signals | null; error?: Error };
  try {
    outcome = await new Promise((resolve) => {
      child.once("error", (error) => resolve({ code: null, signal: null, error }));
      child.once("close", (code, signal) => resolve({ code, signal }));
    });
  } finally {
    for (const signal of forward) process.off(signal, onSignal);
    process.off("SIGINT", onInterrupt);
    execution.signal.removeEventListener("abort", onLost);
  }
  await endAndSay(io, execution, feature);
  if (outcome.error) {
    out.fail(EXIT_CANNOT_RUN, "cannot_run", `Cannot run ${file}: ${outcome.error.message}`);
    return EXIT_CANNOT_RUN;
  }
  if (outcome.signal) return 128 + (osConstants.signals[outcome.signal] ?? 0);
  return outcome.code ?? 0;
}

async function endAndSay(io: CliIO, execution: Execution, feature: string | undefined) {
  const end = await execution.end();
  if (end.reportAsUsage) {
    io.stderr.write(
      `${BIN}: this execution ran offline on the license file; once online, report it with ` +
        `"${BIN} usage 1${feature ? ` --feature ${feature}` : ""}".\n`,
    );
  } else if (!end.confirmed) {
    io.stderr.write(
      `${BIN}: could not tell the licensing server that the execution ended; its lease expires within ` +
        `${formatDuration(executionExpiresAfterSeconds())}.\n`,
    );
  }
}

function describeRunning(running: number, limit: number | null): string {
  return limit === null ? `${running} running (no limit)` : `${running} of ${limit} running`;
}

function describeHolder(machineName: string | null, displayId: string): string {
  return machineName ? `${machineName} (${displayId})` : displayId;
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

function expectArgs(command: Command, args: string[], names: string[], sub?: string): string[] {
  if (args.length !== names.length) {
    const expected = names.length ? ` ${names.join(" ")}` : "";
    throw new UsageError(
      `Usage: ${BIN} ${command}${sub ? ` ${sub}` : ""}${expected}${args.length > names.length ? " (too many arguments)" : ""}`,
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

  /** The plan's limit is reached: who runs what, since when, and when a slot frees itself at the latest. */
  executionLimit(error: ExecutionLimitError): number {
    const running = error.running.map((holder) => ({
      display_id: holder.displayId,
      machine_name: holder.machineName,
      started_at: holder.startedAt.toISOString(),
      expires_at: holder.expiresAt.toISOString(),
    }));
    if (this.jsonMode) {
      return this.json(EXIT.limit, {
        ok: false,
        error: {
          type: "execution_limit",
          message: error.message,
          code: error.code,
          source: error.source,
          limit: error.limit,
          running,
          oldest_expires_at: error.oldestExpiresAt.toISOString(),
        },
      });
    }
    const lines = [`${error.code}: ${error.message}`];
    for (const holder of error.running) {
      lines.push(
        `  Running   ${describeHolder(holder.machineName, holder.displayId)}, since ${formatDate(holder.startedAt)}`,
      );
    }
    lines.push(
      error.source === "local"
        ? `  Counted on this machine (offline, on its license file): the executions above run until their processes end.`
        : `  The soonest a slot frees itself, if its app has stopped: ${this.when(error.oldestExpiresAt)}.`,
    );
    this.io.stderr.write(`${lines.join("\n")}\n`);
    return EXIT.limit;
  }

  error(error: unknown): number {
    if (error instanceof UsageError) return this.fail(EXIT.usage, "usage_error", error.message);
    if (error instanceof UpdateError) {
      return this.fail(EXIT.invalid, "update_refused", error.message, {
        reason: error.reason,
        ...(error.detail ? { detail: error.detail } : {}),
      });
    }
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
    if (error instanceof ExecutionLimitError) return this.executionLimit(error);
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
      if (error.code?.startsWith("EXECUTION_")) {
        return this.fail(EXIT.invalid, "execution_refused", `${error.code}: ${error.message}`, extra);
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

/** The machine by the name it was given (when there is one), its id beside it: "Ada MacBook Pro (a1b2…, display id …)". */
function describeMachine(
  machineId: string,
  machine: { display_id: string; is_primary: boolean } | null,
  machineName: string | null = null,
): string {
  const id = machineId.length > 24 ? `${machineId.slice(0, 20)}…` : machineId;
  const details = [
    ...(machineName ? [id] : []),
    ...(machine ? [`display id ${machine.display_id}`] : []),
    ...(machine?.is_primary ? ["primary"] : []),
  ];
  const head = machineName ?? id;
  return details.length > 0 ? `${head} (${details.join(", ")})` : head;
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

/** "in 6d 23h", "in 5m 30s", "in 45s", "2h 5m ago": two units at most, and seconds under an hour (never "in 0m"). */
function relative(ms: number): string {
  const past = ms < 0;
  let seconds = Math.floor(Math.abs(ms) / 1000);
  if (seconds === 0) return past ? "under a second ago" : "in under a second";
  const days = Math.floor(seconds / 86_400);
  seconds -= days * 86_400;
  const hours = Math.floor(seconds / 3_600);
  seconds -= hours * 3_600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  const text =
    days > 0
      ? `${days}d ${hours}h`
      : hours > 0
        ? `${hours}h ${minutes}m`
        : minutes > 0
          ? `${minutes}m${seconds > 0 ? ` ${seconds}s` : ""}`
          : `${seconds}s`;
  return past ? `${text} ago` : `in ${text}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function processIO(): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}
