/**
 * Storage for the development issuer (oidc-provider's adapter interface), in the database every instance shares
 * (`oidc_store`): interactions, codes, sessions and grants, plus the issuer's signing key and the accounts signed
 * in through its form. A sign-in started through one instance completes through another.
 *
 * Nothing usable is stored in the clear, as for the service's own sessions: ids (authorization codes are ids) and
 * lookup values are HMAC-SHA-256 digests, payloads are sealed with AES-256-GCM, both keyed from APP_SECRET, which
 * every instance shares. Every row but the key carries its expiry: reads ignore expired rows, retention deletes them.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { and, eq, gt, isNull, ne, or, type SQL } from "drizzle-orm";
import type { Adapter, AdapterPayload } from "oidc-provider";
import type { Database } from "../../db/client";
import { oidcStore } from "../../db/schema";

export interface DevIssuerStorage {
  Adapter: new (model: string) => Adapter;
  get<T>(model: string, id: string): Promise<T | undefined>;
  put(model: string, id: string, payload: object, ttlSeconds: number | null): Promise<void>;
  /** Inserts unless present, then reads what won (several instances may start at once). */
  getOrCreate<T extends object>(model: string, id: string, make: () => T): Promise<T>;
}

const live = (now: Date) => or(isNull(oidcStore.expiresAt), gt(oidcStore.expiresAt, now));

/** Lookup digests and sealed payloads, keyed from APP_SECRET. */
function sealing(secret: string) {
  const digestKey = createHmac("sha256", secret).update("dev-issuer-store:digest").digest();
  const sealKey = createHmac("sha256", secret).update("dev-issuer-store:seal").digest();
  const digest = (value: string) => createHmac("sha256", digestKey).update(value).digest("base64url");
  const seal = (payload: object) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", sealKey, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(payload), "utf8"), cipher.final()]);
    return { sealed: Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url") };
  };
  const unseal = <T>(stored: unknown): T | undefined => {
    const sealed = (stored as { sealed?: unknown } | null)?.sealed;
    if (typeof sealed !== "string") return undefined;
    const raw = Buffer.from(sealed, "base64url");
    try {
      const decipher = createDecipheriv("aes-256-gcm", sealKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8")) as T;
    } catch {
      return undefined; // sealed under another APP_SECRET: as if absent
    }
  };
  return { digest, seal, unseal };
}

/** A stable subject per email, so the same person is the same customer across restarts. */
export function devSubject(email: string): string {
  return `dev-${createHash("sha256").update(email.trim().toLowerCase()).digest("hex").slice(0, 32)}`;
}

/** One stored record, opened: the account it belongs to (privacy requests, decision 0046). */
export interface DevIssuerRecord {
  model: string;
  /** The stored key (a digest), as in oidc_store.id. */
  id: string;
  accountId: string | null;
  /** The address typed into the sign-in form (DevAccount records), trimmed and lower-cased. */
  email: string | null;
}

interface OpenedPayload {
  accountId?: unknown;
  email?: unknown;
  result?: { login?: { accountId?: unknown } };
  session?: { accountId?: unknown };
}

const text = (value: unknown) => (typeof value === "string" ? value : null);

/**
 * Every record but the signing key, opened, with the account it names. Payloads are sealed, so finding a person's
 * records means opening them all: the table holds only the development issuer's records, each living an hour or less.
 */
export async function readDevIssuerRecords(db: Database, secret: string): Promise<DevIssuerRecord[]> {
  const { unseal } = sealing(secret);
  const rows = await db
    .select({ model: oidcStore.model, id: oidcStore.id, payload: oidcStore.payload })
    .from(oidcStore)
    .where(ne(oidcStore.model, "SigningKey"));
  return rows.map((row) => {
    const payload = unseal<OpenedPayload>(row.payload) ?? {};
    const email = text(payload.email)?.trim().toLowerCase() ?? null;
    const accountId =
      text(payload.accountId) ??
      text(payload.result?.login?.accountId) ??
      text(payload.session?.accountId) ??
      (row.model === "DevAccount" && email ? devSubject(email) : null);
    return { model: row.model, id: row.id, accountId, email };
  });
}

export function createDevIssuerStorage(db: Database, secret: string): DevIssuerStorage {
  const { digest, seal, unseal } = sealing(secret);

  async function findWhere<T>(where: SQL | undefined): Promise<T | undefined> {
    const [row] = await db
      .select({ payload: oidcStore.payload })
      .from(oidcStore)
      .where(and(where, live(new Date())));
    return row ? unseal<T>(row.payload) : undefined;
  }

  async function put(
    model: string,
    id: string,
    payload: object,
    expiresAt: Date | null,
    lookups: { grantId?: string; uid?: string; userCode?: string } = {},
  ) {
    const row = {
      model,
      id: digest(id),
      payload: seal(payload),
      grantId: lookups.grantId ? digest(lookups.grantId) : null,
      uid: lookups.uid ? digest(lookups.uid) : null,
      userCode: lookups.userCode ? digest(lookups.userCode) : null,
      expiresAt,
    };
    await db
      .insert(oidcStore)
      .values(row)
      .onConflictDoUpdate({
        target: [oidcStore.model, oidcStore.id],
        set: {
          payload: row.payload,
          grantId: row.grantId,
          uid: row.uid,
          userCode: row.userCode,
          expiresAt: row.expiresAt,
        },
      });
  }

  const byId = (model: string, id: string) => and(eq(oidcStore.model, model), eq(oidcStore.id, digest(id)));

  class DevIssuerStore implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await put(this.model, id, payload, expiresIn ? new Date(Date.now() + expiresIn * 1000) : null, payload);
    }

    find(id: string) {
      return findWhere<AdapterPayload>(byId(this.model, id));
    }

    findByUserCode(userCode: string) {
      return findWhere<AdapterPayload>(and(eq(oidcStore.model, this.model), eq(oidcStore.userCode, digest(userCode))));
    }

    findByUid(uid: string) {
      return findWhere<AdapterPayload>(and(eq(oidcStore.model, this.model), eq(oidcStore.uid, digest(uid))));
    }

    async consume(id: string): Promise<void> {
      const payload = await this.find(id);
      if (!payload) return;
      const [row] = await db.select({ expiresAt: oidcStore.expiresAt }).from(oidcStore).where(byId(this.model, id));
      await put(
        this.model,
        id,
        { ...payload, consumed: Math.floor(Date.now() / 1000) },
        row?.expiresAt ?? null,
        payload,
      );
    }

    async destroy(id: string): Promise<void> {
      await db.delete(oidcStore).where(byId(this.model, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.delete(oidcStore).where(eq(oidcStore.grantId, digest(grantId)));
    }
  }

  const storage: DevIssuerStorage = {
    Adapter: DevIssuerStore,
    get: (model, id) => findWhere(byId(model, id)),
    put: (model, id, payload, ttlSeconds) =>
      put(model, id, payload, ttlSeconds ? new Date(Date.now() + ttlSeconds * 1000) : null),
    async getOrCreate(model, id, make) {
      const existing = await storage.get<ReturnType<typeof make>>(model, id);
      if (existing) return existing;
      await db
        .insert(oidcStore)
        .values({ model, id: digest(id), payload: seal(make()) })
        .onConflictDoNothing();
      const stored = await storage.get<ReturnType<typeof make>>(model, id);
      if (!stored) throw new Error(`development issuer record ${model}/${id} missing after insert`);
      return stored;
    },
  };
  return storage;
}
