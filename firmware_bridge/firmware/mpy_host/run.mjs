// Run a Python script under MicroPython (WebAssembly port) with the given modules beside it.
// usage: node run.mjs MODULE.py... SCRIPT.py   -> the script's stdout; exit 1 on a Python exception
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const files = process.argv.slice(2);
const out = [];
const mp = await loadMicroPython({ stdout: (s) => out.push(s), stderr: (s) => process.stderr.write(s + "\n") });
for (const f of files.slice(0, -1)) mp.FS.writeFile("/" + basename(f), readFileSync(f));
try {
  mp.runPython("import sys\nsys.path.insert(0, '/')\n" + readFileSync(files[files.length - 1], "utf8"));
} catch (err) {
  process.stdout.write(out.join("\n") + "\n");
  process.stderr.write(String(err) + "\n");
  process.exit(1);
}
process.stdout.write(out.join("\n") + "\n");
