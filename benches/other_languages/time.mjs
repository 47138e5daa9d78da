// jsonrepair (JavaScript) on the messy reply: the fenced block cut out (it
// does not look for a value in prose), repaired, then JSON.parse'd, as a
// user of it would. The mean of 20 calls after 3 to warm up.
import { readFileSync } from "node:fs";
import { jsonrepair } from "jsonrepair";

const text = readFileSync(process.argv[2], "utf8");
const start = text.indexOf("```json\n") + "```json\n".length;
const block = text.slice(start, text.lastIndexOf("```"));
const run = () => JSON.parse(jsonrepair(block));
const records = run().records.length;
for (let i = 0; i < 3; i++) run();
const runs = 20;
const t = process.hrtime.bigint();
for (let i = 0; i < runs; i++) run();
const ms = Number(process.hrtime.bigint() - t) / 1e6 / runs;
console.log(`jsonrepair ${ms.toFixed(2)} ms (${records} records)`);
