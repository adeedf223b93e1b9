/** Types of @echogarden/espeak-ng-emscripten (it ships none): the Emscripten module factory. */
declare module '@echogarden/espeak-ng-emscripten' {
  const initialize: () => Promise<unknown>;
  export default initialize;
}
