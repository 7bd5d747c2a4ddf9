// For a handle that a beforeAll hook makes (an app, a receiver, a service) but that the file names
// from the start, in describe blocks and module-level helpers: a stand-in of the handle's type that
// forwards every property read to the handle once it exists. The handles of test/support are plain
// objects of closures, so their methods work through it unchanged.

/** An object of type T reading through to `current()`; using it before that returns a value throws. */
export function standIn<T extends object>(what: string, current: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_, property) {
      const handle = current();
      if (handle === undefined) throw new Error(`${what} is not there yet: it is made in a beforeAll hook`);
      return Reflect.get(handle, property, handle);
    },
  });
}
