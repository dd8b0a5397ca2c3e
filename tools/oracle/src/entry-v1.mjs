// Bundle entry for @ag-ui/client 1.0.0: the inbound pipeline stages the
// oracle composes the way AbstractAgent.runAgent does, plus the helpers the
// runner needs from the same copies of rxjs and untruncate-json.
export {
  CompatibilityBoundary,
  enforceEvents,
  transformChunks,
  verifyEvents,
  defaultApplyEvents,
  EventType,
  HttpAgent,
} from "ag-client-v1";
export { Observable, Subject, from, lastValueFrom, of } from "rxjs";
export { catchError, map, toArray } from "rxjs/operators";
export { default as untruncateJson } from "untruncate-json";
