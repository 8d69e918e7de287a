import type { AppContext } from "./context.ts";

/**
 * Work one feature lets the composition root attach to its own (a call's end, a number's purchase),
 * so features reach each other without importing each other. Kept per context: each server its own.
 */
export function hookPoint<Hook>(): { add(ctx: AppContext, hook: Hook): void; of(ctx: AppContext): Iterable<Hook> } {
  const registry = new WeakMap<AppContext, Set<Hook>>();
  return {
    add(ctx, hook) {
      let hooks = registry.get(ctx);
      if (!hooks) registry.set(ctx, (hooks = new Set()));
      hooks.add(hook);
    },
    of: (ctx) => registry.get(ctx) ?? [],
  };
}
