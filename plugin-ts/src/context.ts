// Context strings returned by allow decisions, kept per session, injected into the system prompt on every
// LLM call of that session and handed to compaction so they survive it.
const MAX_ITEMS = 32;
const MAX_ITEM_CHARS = 4000;

export class SessionContext {
  private readonly bySession = new Map<string, string[]>();

  add(sessionID: string, items: readonly string[]): void {
    const list = this.bySession.get(sessionID) ?? [];
    for (const raw of items) {
      const item = raw.trim().slice(0, MAX_ITEM_CHARS);
      if (item === "") continue;
      const at = list.indexOf(item);
      if (at >= 0) list.splice(at, 1); // re-add at the end: most recent last
      list.push(item);
    }
    while (list.length > MAX_ITEMS) list.shift();
    if (list.length > 0) this.bySession.set(sessionID, list);
  }

  get(sessionID: string | undefined): readonly string[] {
    if (sessionID === undefined) return [];
    return this.bySession.get(sessionID) ?? [];
  }
}
