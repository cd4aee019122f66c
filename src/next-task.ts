/**
 * One turn of the event loop: resolves once due timers and ready I/O have run. In workerd this is
 * also when queued socket writes go out, which is why the stream's pacing and the relay wait on it.
 */
export const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
