/**
 * @module When a connection's background reads (the cost statistics, `statistics.ts`; the facet
 * columns, `facet-columns.ts`) may run their next statement: only while no call is in flight on
 * the connection, and with its interrupt slot disarmed.
 *
 * A worker runs them on the connection its calls use. A call that awaits between its statements
 * leaves the event loop to them; the interrupt for that call (`vql_interrupt`, native/interrupt.c)
 * stops whatever statement the connection runs at that moment, so it could stop a background read
 * while the timed-out call ran on until the worker was replaced. Waiting for the calls, and
 * running with the slot armed with token 0 (which no interrupt names), keeps the two apart; a call
 * that arrives while a background statement runs waits for that one statement only.
 */

/** The calls in flight on one connection, and the background reads waiting for none to be. */
export class BackgroundGate {
  #calls = 0
  #waiting: (() => void)[] = []
  /** Arms the connection's interrupt slot with token 0 (set where the connection has one). */
  disarm: (() => void) | undefined

  /** Calls in flight now (tests). */
  get calls(): number {
    return this.#calls
  }

  /** A call starts on the connection: background statements wait until it ends. */
  begin(): void {
    this.#calls++
  }

  end(): void {
    if (this.#calls > 0) this.#calls--
    if (this.#calls === 0) for (const resume of this.#waiting.splice(0)) resume()
  }

  /**
   * Resolves when the next background statement may run: after a turn of the event loop (so that
   * calls already received start first), once no call is in flight, with the slot disarmed.
   */
  async turn(): Promise<void> {
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve))
      if (this.#calls === 0) break
      await new Promise<void>((resolve) => this.#waiting.push(resolve))
    }
    this.disarm?.()
  }
}

const gates = new WeakMap<object, BackgroundGate>()

/** The gate of the connection `db` (its Kysely instance, as the pipeline and the columns key it). */
export function backgroundGate(db: object): BackgroundGate {
  let gate = gates.get(db)
  if (!gate) gates.set(db, (gate = new BackgroundGate()))
  return gate
}
