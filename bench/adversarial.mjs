// The hostile inputs redaction must stay linear on (docs/design.md#redaction): each unit is a
// shape that once made a rule rescan what it had read. Used by bench/run.mjs's 1 MB row and by
// test/guard/redact-adversarial.test.ts.
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** A fixed pseudo-random base64 string of `n` characters (no literal that scanners flag). */
function b64(n, seed) {
  let s = "";
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += B64[x % 64];
  }
  return s;
}

/** Units repeated on one line or over lines; together they cover every rule family's trigger. */
export const ADVERSARIAL_UNITS = {
  cookieHeader: "Cookie: ",
  cookiePairs: "Cookie: a=b; ",
  setCookie: "Set-Cookie: ",
  password: "password=",
  passwordFlag: "--password ",
  bearer: "Bearer ",
  url: "https://u:",
  awsKeyId: `AKIA${"A".repeat(16)} `,
  pemBegin: "-----BEGIN RSA PRIVATE KEY-----\n# ",
  tableRow: "| password | x |\n",
  prefixLines: `# ${b64(40, 7)}\n`,
  wrapped: `${b64(64, 9)}\n`,
  cliFlags: "redis-cli -a ",
  sudo: "echo x | ",
  said: "my password is ",
  xml: "<password>",
  connection: "server=a;",
  mysql: "mysql -p",
};

/** About `bytes` of text: each unit in turn, repeated to an equal share. */
export function adversarialDocument(bytes = 1_000_000) {
  const units = Object.values(ADVERSARIAL_UNITS);
  const share = Math.floor(bytes / units.length);
  return units.map((u) => `${u.repeat(Math.max(1, Math.floor(share / u.length)))}\n`).join("");
}
