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

/**
 * What one feature needs of others (its ports), installed once per context by the composition root so
 * the feature imports none of them. A use before that is a wiring mistake, said as such.
 */
export function portPoint<Ports>(feature: string): { install(ctx: AppContext, ports: Ports): void; of(ctx: AppContext): Ports } {
  const installed = new WeakMap<AppContext, Ports>();
  return {
    install: (ctx, ports) => void installed.set(ctx, ports),
    of(ctx) {
      const ports = installed.get(ctx);
      if (!ports) throw new Error(`the ${feature} feature's ports are not installed (src/server.ts installs them)`);
      return ports;
    },
  };
}
