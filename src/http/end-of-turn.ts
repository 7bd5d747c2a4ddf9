// The end of the event loop's current turn, which the edge waits for before it writes an answer
// made in the same turn as its request was read. node:http reads the requests that arrived together
// one after another in one turn; an answer that needed no I/O (a refusal, a page) would otherwise go
// out between those reads, one write and one wake-up of its client at a time, and the client's next
// requests then come in one by one as well. Written at the end of the turn, the answers leave
// together, as those that waited for the database do.

let turnEnd: Promise<void> | null = null;

/**
 * Resolves in the check phase of the current turn (setImmediate), once the requests read in it have
 * been handled; every caller in the turn shares one promise. Awaited later, when it has resolved,
 * it delays nothing but a microtask.
 */
export function endOfTurn(): Promise<void> {
  return (turnEnd ??= new Promise((resolve) =>
    setImmediate(() => {
      turnEnd = null;
      resolve();
    }),
  ));
}
