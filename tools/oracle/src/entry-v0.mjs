// Bundle entry for @ag-ui/client 0.0.58 (with @ag-ui/core 0.0.58): the
// inbound pipeline stages as its AbstractAgent.runAgent composes them.
export {
  transformChunks,
  verifyEvents,
  defaultApplyEvents,
  EventSchemas,
  EventType,
} from "ag-client-v0";
export { Observable, Subject, from, lastValueFrom, of } from "rxjs";
export { catchError, map, toArray } from "rxjs/operators";
export { default as untruncateJson } from "untruncate-json";
