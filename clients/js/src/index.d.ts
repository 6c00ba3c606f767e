// Type declarations of refd-client (src/index.js).

export declare const PROTOCOL: number;
export declare const REQ_SUBPROTOCOL: string;
export declare const SUB_SUBPROTOCOL: string;

export interface RefdErrorMap {
  code: number;
  name: string;
  message: string;
  detail?: { rule?: string; arg?: string; [k: string]: unknown } | null;
}

/** The daemon refused a request. */
export declare class RefdError extends Error {
  constructor(e: RefdErrorMap);
  code: number;
  /** The stable error name: ETOKEN, EILLEGAL, ESTALE, ... */
  errorName: string;
  refdMessage: string;
  detail: Record<string, unknown>;
  /** The ruleset rule a rejected command violates, or null. */
  rule: string | null;
}
/** A reply that is not a valid refd reply; the client stays usable. */
export declare class ProtocolError extends Error {}
/** No reply in time, after every try. */
export declare class TimeoutError extends Error {}

export interface ClientOptions {
  /** Milliseconds to wait for a reply per try (default 10000). */
  timeout?: number;
  /** Tries of a request that timed out, each on a fresh connection (3). */
  tries?: number;
  /** The largest reply accepted, in bytes (256 MiB). */
  maxReply?: number;
  /** The WebSocket subprotocol (default REQ_SUBPROTOCOL). */
  subprotocol?: string;
  /** A WebSocket constructor (default: the global one, else `ws`). */
  WebSocket?: unknown;
}

export type Cmd = Record<string, unknown> & { type: string };
export interface Created { match: string; ruleset: string; scripted: boolean; seq: number; seats?: number }
export interface Joined { match: string; seat: number; token: string; seq: number }
export interface Acted { seq: number; replayed: boolean; finished: boolean }
export interface LegalItem { label: string; cmd?: Cmd; template?: Record<string, unknown> }
export interface Legal { seq: number; legal: LegalItem[] }
export interface Pending { seq: number; finished: boolean; seats: number[] }
export interface View { seq: number; seat: number | null; finished: boolean; view: unknown }
export interface RefdEvent { type: string; seq: number; i: number; /** protocol 1.1: the number of a public event among them, from 1 */ n?: number; match?: string; [k: string]: unknown }
export interface EventsPage { seq: number; until: number; more: boolean; finished: boolean; events: RefdEvent[] }

export declare function rng(seed?: number): () => number;

export declare class Client {
  constructor(url: string, opts?: ClientOptions);
  static connect(url: string, opts?: ClientOptions): Promise<Client>;
  readonly url: string;
  close(): void;
  request(op: string, args?: Record<string, unknown>): Promise<any>;
  hello(): Promise<Record<string, any>>;
  rulesets(): Promise<Array<Record<string, any>>>;
  create(ruleset: string, o?: { scenario?: string; setup?: unknown; seats?: number; dice?: number[] }): Promise<Created>;
  join(match: string, seat: number, seed?: string): Promise<Joined>;
  act(match: string, seat: number, token: string, cmd: Cmd, o?: { cmdId?: string; expectedSeq?: number }): Promise<Acted>;
  legal(match: string, seat: number, token: string): Promise<Legal>;
  pending(match: string): Promise<Pending>;
  view(match: string, seat?: number, token?: string): Promise<View>;
  events(match: string, o?: { since?: number; limit?: number; seat?: number; token?: string }): Promise<EventsPage>;
  allEvents(match: string, o?: { since?: number; seat?: number; token?: string }): Promise<RefdEvent[]>;
  export(match: string, adminToken?: string): Promise<{ log: Uint8Array; [k: string]: unknown }>;
  resign(match: string, seat: number, token: string): Promise<Record<string, any>>;
  abort(match: string, o?: { reason?: string; adminToken?: string; seat?: number; token?: string }): Promise<Record<string, any>>;
  matches(o?: { after?: string; limit?: number }): Promise<Array<Record<string, any>>>;
  stats(): Promise<Record<string, any>>;
  pubkey(): Promise<{ pubkey: string }>;
  /** The match's signed head: keep it for `refctl verify --head`. */
  head(match: string): Promise<{ match: string; records: number; seq: number; hash: string; pubkey: string; sig: string }>;
  subscribe(match: string, o?: { url?: string; since?: number }): Promise<Subscription>;
  playRandom(match: string, seat: number, token: string, o?: { seed?: number; maxSteps?: number; poll?: number }): Promise<number>;
  playAllRandom(match: string, tokens: Record<number, string>, o?: { seed?: number; maxSteps?: number }): Promise<number>;
}

export declare class Subscription implements AsyncIterable<RefdEvent> {
  readonly match: string;
  readonly url: string;
  finished: boolean;
  gapsFilled: number;
  next(timeout?: number): Promise<RefdEvent | null>;
  close(): void;
  [Symbol.asyncIterator](): AsyncIterator<RefdEvent>;
}
