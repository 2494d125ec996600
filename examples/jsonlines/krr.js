// k-RR speaking ldpaudit's JSON-lines protocol: node krr.js D EPSILON
const [d, eps] = process.argv.slice(2).map(Number), keep = Math.exp(eps) / (Math.exp(eps) + d - 1);
const mulberry32 = (a) => () => { a = (a + 0x6D2B79F5) | 0; let t = Math.imul(a ^ (a >>> 15), 1 | a);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const req = JSON.parse(line), rand = mulberry32(Number(BigInt(req.seed) % 4294967296n)), out = [];
  for (let i = 0; i < req.count; i++) {
    const y = Math.floor(rand() * (d - 1));
    out.push(rand() < keep ? req.input : y + (y >= req.input ? 1 : 0)); }
  console.log(JSON.stringify({ outputs: out })); });
