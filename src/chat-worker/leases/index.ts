/** @module The chat worker's database side: acquisition with admission, leases, wake-up and sync reads. */
export * from "./admission";
export * from "./acquire-in-command";
export * from "./heartbeats";
export * from "./pools";
export * from "./sweep";
export { RUNNABLE_STATUSES } from "./lease";
