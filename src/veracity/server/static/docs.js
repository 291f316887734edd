// The API description (/openapi.json) as a page: each endpoint, its body's fields with their
// types, limits and allowed values, and its answers. Every text goes in as text, never markup.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function resolve(schema, spec) {
  if (schema && schema.$ref) return spec.components.schemas[schema.$ref.split("/").pop()];
  return schema || {};
}

function describeField(name, field, spec) {
  const option = (field.anyOf || []).find((o) => o.type && o.type !== "null") || field;
  const parts = [name, option.type || (option.$ref ? option.$ref.split("/").pop() : "")];
  for (const key of ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"]) {
    if (option[key] !== undefined) parts.push(key + " " + option[key]);
  }
  const allowed = option.enum || (option.items && option.items.enum);
  if (allowed) parts.push("one of " + allowed.join(", "));
  if (field.default !== undefined) parts.push("default " + JSON.stringify(field.default));
  const line = el("li", parts.join(" · "));
  if (field.description) line.append(el("div", field.description, "docs-help"));
  return line;
}

function endpoint(path, method, operation, spec) {
  const block = el("article", undefined, "docs-endpoint");
  block.append(el("h2", method.toUpperCase() + " " + path));
  if (operation.description || operation.summary) {
    block.append(el("p", operation.description || operation.summary));
  }
  if (operation.security) block.append(el("p", "needs Authorization: Bearer <token> when the server has one", "docs-help"));
  const body = operation.requestBody;
  if (body) {
    const schema = resolve(body.content["application/json"].schema, spec);
    const fields = el("ul");
    for (const [name, field] of Object.entries(schema.properties || {})) {
      fields.append(describeField(name, field, spec));
    }
    block.append(el("h3", "body"), fields);
  }
  const answers = el("ul");
  for (const [status, response] of Object.entries(operation.responses || {})) {
    answers.append(el("li", status + " · " + (response.description || "")));
  }
  block.append(el("h3", "answers"), answers);
  return block;
}

async function main() {
  const response = await fetch("/openapi.json");
  const spec = await response.json();
  $("docs-description").textContent = spec.info.description || "";
  const list = $("docs-endpoints");
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      list.append(endpoint(path, method, operation, spec));
    }
  }
  $("docs-status").textContent = "veracity " + spec.info.version + " · " +
    Object.keys(spec.paths).length + " endpoints";
}

main().catch((e) => { $("docs-status").textContent = "could not read /openapi.json: " + e.message; });
