// Request sequencing for live previews: requests are debounced, at most one is in flight, and
// an answer is delivered only if no newer request was made meanwhile (stale answers are dropped).
// When the in-flight request ends and a newer one is due, the newest one is sent next.

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface LatestOptions<Req, Res> {
  run: (request: Req) => Promise<Res>;
  onResult: (result: Res, request: Req) => void;
  onError: (error: unknown, request: Req) => void;
  /** Quiet time after the last request before it is sent. */
  delayMs: number;
  timers?: Timers;
}

export interface LatestRunner<Req> {
  /** Asks for `request`; replaces any request not yet sent. */
  request(request: Req): void;
  /** Whether a request is in flight. */
  busy(): boolean;
  /** Stops timers and drops every answer still to come. */
  dispose(): void;
}

export function createLatestRunner<Req, Res>(options: LatestOptions<Req, Res>): LatestRunner<Req> {
  const timers = options.timers ?? realTimers;
  let generation = 0;
  let pending: { generation: number; request: Req } | null = null;
  let inFlight = false;
  // The debounce ran out while a request was in flight: send the pending one when it ends.
  let due = false;
  let timer: unknown = null;
  let disposed = false;

  const start = () => {
    if (!pending) return;
    const { generation: mine, request } = pending;
    pending = null;
    due = false;
    inFlight = true;
    const finish = () => {
      inFlight = false;
      if (!disposed && due) start();
    };
    options.run(request).then(
      (result) => {
        if (!disposed && mine === generation) options.onResult(result, request);
        finish();
      },
      (error: unknown) => {
        if (!disposed && mine === generation) options.onError(error, request);
        finish();
      },
    );
  };

  const fire = () => {
    timer = null;
    if (disposed || !pending) return;
    if (inFlight) due = true;
    else start();
  };

  return {
    request(request) {
      if (disposed) return;
      generation += 1;
      pending = { generation, request };
      if (timer !== null) timers.clear(timer);
      timer = timers.set(fire, options.delayMs);
    },
    busy: () => inFlight,
    dispose() {
      disposed = true;
      pending = null;
      if (timer !== null) timers.clear(timer);
      timer = null;
    },
  };
}
