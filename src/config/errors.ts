/** A problem with the operator's input: printed as one line, never with a stack. */
export class ConfigError extends Error {}
