// Writes one SVG per card from the CC0 package @letele/playing-cards (its dist/index.esm.js, React components).
// Usage: node extract_kennard.mjs PACKAGE_DIR OUT_DIR
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const KEEP = new Set(["viewBox", "preserveAspectRatio", "patternUnits"]);
const SPECIAL = { className: "class", xlinkHref: "xlink:href", xmlnsXlink: "xmlns:xlink" };
const esc = (v) => String(v).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
const attr = (k) => SPECIAL[k] ?? (KEEP.has(k) ? k : k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()));
globalThis.__svgReact = {
  createElement(tag, props, ...children) {
    let a = "";
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null || k === "title" || k === "titleId") continue;
      a += ` ${attr(k)}="${esc(v)}"`;
    }
    return `<${tag}${a}>${children.filter((c) => c != null && c !== false).join("")}</${tag}>`;
  },
};
const [pkg, out] = process.argv.slice(2);
const source = readFileSync(join(pkg, "dist", "index.esm.js"), "utf8")
  .replace("import _extends from '@babel/runtime/helpers/extends';", "const _extends = Object.assign;")
  .replace("import * as React from 'react';", "const React = globalThis.__svgReact;");
const deck = await import("data:text/javascript;base64," + Buffer.from(source).toString("base64"));
mkdirSync(out, { recursive: true });
for (const [name, component] of Object.entries(deck)) {
  let svg = component({});
  if (!svg.includes("xmlns:xlink")) svg = svg.replace("<svg ", '<svg xmlns:xlink="http://www.w3.org/1999/xlink" ');
  writeFileSync(join(out, `${name}.svg`), svg);
}
