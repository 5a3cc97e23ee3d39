// Types of sql.js's browser build (the package types its Node entry only).
declare module 'sql.js/dist/sql-wasm-browser.js' {
  import init from 'sql.js';
  export default init;
}
