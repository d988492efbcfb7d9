// Runs the real OpenClaw config validator over each file named on the
// command line, in one process (the CLI takes seconds per start), and
// prints one JSON line per file: {file, valid, issues}. It does what
// `openclaw config validate` does, with the config path given per file.
// Usage: node validate.mjs <openclaw package dir> FILE...
import { readdirSync } from "node:fs";
import { join } from "node:path";

const [pkg, ...files] = process.argv.slice(2);
const dist = join(pkg, "dist");
const validationModule = readdirSync(dist).find((n) => /^config-cli-validation-.*\.mjs$/.test(n));
const { createConfigIO } = await import(join(dist, "config", "config.js"));
const { finishConfigValidationForCli } = await import(join(dist, validationModule));

for (const file of files) {
  let line;
  try {
    const io = createConfigIO({ configPath: file });
    const read = await io.readConfigFileSnapshotWithPluginMetadata({ prepareValidation: "strict" });
    const snap = await finishConfigValidationForCli(read);
    const issues = (snap.issues ?? []).map((i) => `${i.path}: ${i.message}`);
    line = { file, valid: snap.exists && snap.valid, issues: issues.slice(0, 3) };
  } catch (err) {
    line = { file, valid: false, issues: [String(err).slice(0, 300)] };
  }
  process.stdout.write(JSON.stringify(line) + "\n");
}
