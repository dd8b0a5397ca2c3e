// Replaces the `uuid` package inside the 1.0 bundle so that ids the client
// mints (the THINKING_* translation at the compatibility boundary) are
// deterministic: the runner resets the counter for every stream.
let counter = 0;
export function resetMint() {
  counter = 0;
}
export function v4() {
  counter += 1;
  return `00000000-0000-4000-8000-${counter.toString(16).padStart(12, "0")}`;
}
globalThis.__aguiResetMint = resetMint;
