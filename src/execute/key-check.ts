/**
 * @module A key check carried by the operation it guards: one call (one message to a worker)
 * instead of two. A request to GET /companies/:id used to post the key check, wait for it, then post
 * the lookup: two wake-ups of a worker thread, two round trips through the event loop. With a
 * `DeferredKeyCheck` in the call options, the first engine call made with it runs the check first,
 * in the same worker call, and runs its operation only when the key is valid and (when counted)
 * within its quota (`operations.ts`, `authorized`). Otherwise the call fails with `KeyRefusedError`,
 * and the operation has not run.
 *
 * A check no call has carried (the route answered without one: a malformed id, a 400) runs on its
 * own when its outcome is asked for (`outcome()`), exactly as an eager check would, so a request
 * with a bad key is still refused. If the call that carried it failed (over its budget, cancelled,
 * the database unavailable), the outcome rejects with that error: the call's own answer stands.
 */
import type { Authorization } from './operations.js'

/** What a key check needs, as plain data (it travels to a worker with the call). */
export interface KeyCheckRequest {
  readonly key: string
  readonly nowMs: number
  /** Count one request against the key's quota (false: only read its state). */
  readonly count: boolean
  /** Read the database's data version in the same call (the ETag of a GET). */
  readonly withDataVersion: boolean
}

/** The answer of the fused call: the check's outcome, and the operation's value when it ran. */
export type Guarded<T> =
  | { readonly authorization: Authorization; readonly ran: true; readonly value: T }
  | { readonly authorization: Authorization; readonly ran: false }

/** Whether an authorization lets the guarded operation run (a refused count does not). */
export function admits(authorization: Authorization, count: boolean): boolean {
  return authorization.ok && (!count || authorization.quota.allowed)
}

/**
 * An engine call that carried a key check the key did not pass (unknown, revoked, or over its quota
 * when counted): its operation did not run. `authorization` says why.
 */
export class KeyRefusedError extends Error {
  override readonly name = 'KeyRefusedError'
  constructor(readonly authorization: Authorization) {
    super(authorization.ok ? 'The API key has used up its quota for this period.' : `The API key is ${authorization.reason === 'revoked' ? 'revoked' : 'not valid'}.`)
  }
}

/** The engine's hold on a check it carries in a call. */
export interface ClaimedKeyCheck {
  readonly request: KeyCheckRequest
  settle(authorization: Authorization): void
  fail(error: unknown): void
}

/**
 * For the engine only (not exported from the package): the first call made with the check takes it
 * and must settle or fail it; later calls get undefined and wait for its outcome instead.
 */
export let claimKeyCheck: (check: DeferredKeyCheck) => ClaimedKeyCheck | undefined

/**
 * A key check that runs with the first engine call given it (`CallOptions.keyCheck`), or on its own
 * when its outcome is asked for first. Made by `engine.access.defer`.
 */
export class DeferredKeyCheck {
  readonly request: KeyCheckRequest
  readonly #standalone: (request: KeyCheckRequest) => Promise<Authorization>
  readonly #outcome: Promise<Authorization>
  #resolve!: (authorization: Authorization) => void
  #reject!: (error: unknown) => void
  #claimed = false
  #carried = false

  static {
    claimKeyCheck = (check) => {
      const claimed = check.#claim()
      if (claimed) check.#carried = true
      return claimed
    }
  }

  /** `standalone` runs the check as its own call (`engine.access.defer` passes the engine's). */
  constructor(request: KeyCheckRequest, standalone: (request: KeyCheckRequest) => Promise<Authorization>) {
    this.request = Object.freeze({ ...request })
    this.#standalone = standalone
    this.#outcome = new Promise<Authorization>((resolve, reject) => {
      this.#resolve = resolve
      this.#reject = reject
    })
    // A failed carrying call is answered by that call; nobody need ask for the outcome.
    this.#outcome.catch(() => undefined)
  }

  /** Whether an engine call carried the check (false: not yet, or it ran on its own). */
  get carried(): boolean {
    return this.#carried
  }

  #claim(): ClaimedKeyCheck | undefined {
    if (this.#claimed) return undefined
    this.#claimed = true
    return { request: this.request, settle: (a) => this.#resolve(a), fail: (e) => this.#reject(e) }
  }

  /**
   * The check's outcome: that of the call that carried it, or, when none has, the check run now on
   * its own. Rejects when the call that carried it failed (with that call's error), or when the
   * check run on its own did.
   */
  outcome(): Promise<Authorization> {
    const claimed = this.#claim()
    if (claimed) this.#standalone(this.request).then(claimed.settle, claimed.fail)
    return this.#outcome
  }
}
