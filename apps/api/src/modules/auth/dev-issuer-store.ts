/**
 * Storage for the development issuer's short-lived artifacts (interactions, codes, sessions, grants),
 * in this process's memory with their TTLs. The development issuer is single-instance by design; what
 * production relies on (sessions, login transactions) lives in the database.
 */
import type { Adapter, AdapterPayload } from "oidc-provider";

type Entry = { payload: AdapterPayload; expiresAt: number | null };

const MAX_ENTRIES_PER_MODEL = 10_000;

/** One adapter class per issuer instance, so two apps in one process (tests) never share state. */
export function createDevIssuerStore(): new (name: string) => Adapter {
  const stores = new Map<string, Map<string, Entry>>();
  return class DevIssuerStore extends MemoryStore {
    constructor(name: string) {
      let store = stores.get(name);
      if (!store) {
        store = new Map();
        stores.set(name, store);
      }
      super(store);
    }
  };
}

class MemoryStore implements Adapter {
  constructor(private readonly entries: Map<string, Entry>) {}

  private live(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry?.expiresAt !== undefined && entry.expiresAt !== null && entry.expiresAt <= Date.now()) {
      this.entries.delete(id);
      return undefined;
    }
    return entry;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    if (this.entries.size >= MAX_ENTRIES_PER_MODEL) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(id, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : null });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.live(id)?.payload;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    for (const [id, entry] of this.entries) if (entry.payload.userCode === userCode) return this.find(id);
    return undefined;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    for (const [id, entry] of this.entries) if (entry.payload.uid === uid) return this.find(id);
    return undefined;
  }

  async consume(id: string): Promise<void> {
    const entry = this.live(id);
    if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    this.entries.delete(id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const [id, entry] of this.entries) if (entry.payload.grantId === grantId) this.entries.delete(id);
  }
}
