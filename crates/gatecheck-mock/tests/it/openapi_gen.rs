//! Values drawn from a JSON Schema (2020-12, as the OpenAPI document writes it): `$ref` into
//! the document's components, `const`, `enum`, `type` (one or several), `properties` and
//! `required`, `oneOf`/`anyOf`/`allOf` (a branch merged into its parent), `if`/`then`/`else`,
//! string bounds and `pattern` (drawn by proptest's regex generator), number bounds, arrays.
//! A draw is a candidate: the caller keeps it only when the document's schema accepts it.

use proptest::prelude::Rng;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Map, Value};

/// The name of the PNG file parts.
pub const PNG_NAME: &str = "image.png";

/// Deepest nesting drawn.
const MAX_DEPTH: usize = 6;

/// Texts drawn where a string has no pattern: ASCII, spaces, and other scripts.
const ALPHABET: &[char] = &[
    'a', 'b', 'z', 'A', 'Q', '0', '7', ' ', '-', '_', '.', ':', '/', 'é', 'ß', 'ж', '中', '🦊',
];

/// A seeded drawer over one document.
pub struct Draw<'d> {
    doc: &'d Value,
    runner: TestRunner,
}

impl<'d> Draw<'d> {
    pub fn new(doc: &'d Value, seed: u64) -> Self {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
        Self {
            doc,
            runner: TestRunner::new_with_rng(Config::default(), rng),
        }
    }

    /// A validator of `schema` whose `$ref`s resolve in the document's components.
    pub fn validator(&self, schema: &Value) -> jsonschema::Validator {
        let mut root = schema.clone();
        if let Some(obj) = root.as_object_mut() {
            obj.insert("components".into(), self.doc["components"].clone());
        } else {
            root = json!({ "allOf": [schema], "components": self.doc["components"] });
        }
        jsonschema::draft202012::new(&root).expect("the document's schema compiles")
    }

    /// A number below `n` (`n` > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.runner.rng().next_u64() % n.max(1)
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// A path with its `{parameters}` drawn from their schemas (text: URL-safe), and its
    /// query: the required parameters and half of the others.
    pub fn path(&mut self, template: &str, parameters: &[Value]) -> String {
        let mut path = template.to_owned();
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        for param in parameters {
            let param = self.resolve(param);
            let name = param["name"].as_str().unwrap_or_default();
            if param["in"] == "query"
                && (param["required"] == true || self.one_in(2))
                && let Some(text) = self.param_text(&param["schema"])
            {
                query.append_pair(name, &text);
            }
            if param["in"] != "path" {
                continue;
            }
            let value = match self.value(&param["schema"]) {
                Value::String(s) if param["schema"].get("enum").is_some() => s,
                Value::String(_) => self.word(),
                Value::Number(n) => match n.as_i64() {
                    Some(i) => i.to_string(),
                    None => (n.as_f64().unwrap_or_default() as i64).to_string(),
                },
                other => other.to_string(),
            };
            path = path.replace(&format!("{{{name}}}"), &value);
        }
        let query = query.finish();
        if query.is_empty() {
            path
        } else {
            format!("{path}?{query}")
        }
    }

    /// A query parameter's text (`None` for `null`: not sent).
    fn param_text(&mut self, schema: &Value) -> Option<String> {
        match self.value(schema) {
            Value::Null => None,
            Value::String(s) => Some(s),
            Value::Number(n) => Some(match n.as_i64() {
                Some(i) => i.to_string(),
                None => n.to_string(),
            }),
            other => Some(other.to_string()),
        }
    }

    /// A short URL-safe word.
    fn word(&mut self) -> String {
        let len = 1 + self.below(12) as usize;
        (0..len)
            .map(|_| b"abcdefghijklmnopqrstuvwxyz0123456789_-"[self.below(38) as usize] as char)
            .collect()
    }

    /// `value` with a `$ref` followed (`#/components/...`).
    fn resolve(&self, value: &Value) -> Value {
        match value.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let target = self.doc.pointer(r.trim_start_matches('#')).cloned();
                let mut target = target.unwrap_or(Value::Bool(true));
                if let (Some(t), Some(v)) = (target.as_object_mut(), value.as_object()) {
                    for (k, v) in v.iter().filter(|(k, _)| k.as_str() != "$ref") {
                        t.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                self.resolve(&target)
            }
            None => value.clone(),
        }
    }

    /// A value of `schema`.
    pub fn value(&mut self, schema: &Value) -> Value {
        self.at(schema, 0)
    }

    fn at(&mut self, schema: &Value, depth: usize) -> Value {
        let schema = self.flatten(schema);
        if let Some(c) = schema.get("const") {
            return c.clone();
        }
        if let Some(values) = schema["enum"].as_array().filter(|v| !v.is_empty()) {
            return values[self.below(values.len() as u64) as usize].clone();
        }
        let mut value = match self.pick_type(&schema).as_str() {
            "null" => Value::Null,
            "boolean" => Value::Bool(self.one_in(2)),
            "integer" => self.integer(&schema),
            "number" => self.number(&schema),
            "string" => Value::String(self.string(&schema)),
            "array" => self.array(&schema, depth),
            _ => self.object(&schema, depth),
        };
        if let Some(cond) = schema.get("if").filter(|_| value.is_object()) {
            let branch = if jsonschema::is_valid(cond, &value) {
                &schema["then"]
            } else {
                &schema["else"]
            };
            for (name, sub) in branch["properties"].as_object().into_iter().flatten() {
                if value.get(name).is_some() {
                    value[name] = self.at(sub, depth + 1);
                }
            }
        }
        value
    }

    /// `schema` with its `$ref` followed and one branch of each `oneOf`/`anyOf`, and every
    /// `allOf` part, merged in.
    fn flatten(&mut self, schema: &Value) -> Value {
        let mut schema = self.resolve(schema);
        for _ in 0..MAX_DEPTH {
            let Some(obj) = schema.as_object_mut() else {
                return schema;
            };
            let parts = if let Some(Value::Array(all)) = obj.remove("allOf") {
                all
            } else if let Some(Value::Array(branches)) =
                obj.remove("oneOf").or_else(|| obj.remove("anyOf"))
            {
                let i = self.below(branches.len() as u64) as usize;
                branches.into_iter().skip(i).take(1).collect()
            } else {
                return schema;
            };
            for part in parts {
                let part = self.resolve(&part);
                merge(&mut schema, &part);
            }
        }
        schema
    }

    /// One of the schema's types (inferred from its keywords when it names none).
    fn pick_type(&mut self, schema: &Value) -> String {
        match &schema["type"] {
            Value::String(t) => t.clone(),
            Value::Array(ts) if !ts.is_empty() => {
                // `null` is drawn seldom, so that the other type is seen.
                let non_null: Vec<&Value> = ts.iter().filter(|t| *t != "null").collect();
                if non_null.is_empty() || (non_null.len() < ts.len() && self.one_in(5)) {
                    "null".into()
                } else {
                    let i = self.below(non_null.len() as u64) as usize;
                    non_null[i].as_str().unwrap_or("null").to_owned()
                }
            }
            _ if schema.get("properties").is_some() => "object".into(),
            _ if schema.get("items").is_some() => "array".into(),
            _ => ["string", "integer", "boolean", "null", "number"][self.below(5) as usize].into(),
        }
    }

    fn integer(&mut self, schema: &Value) -> Value {
        let lo = schema["minimum"]
            .as_i64()
            .unwrap_or(-1000)
            .max(-1_000_000_000);
        let hi = schema["maximum"]
            .as_i64()
            .unwrap_or(lo.saturating_add(2000))
            .min(lo + 1_000_000_000);
        let n = if self.one_in(4) {
            if self.one_in(2) {
                lo
            } else {
                hi
            }
        } else {
            lo + self.below((hi - lo + 1).max(1) as u64) as i64
        };
        // JSON Schema's `integer` is any number with no fraction: `2.0` too, now and then.
        if self.one_in(10) && n.unsigned_abs() < 1 << 50 {
            json!(n as f64)
        } else {
            json!(n)
        }
    }

    fn number(&mut self, schema: &Value) -> Value {
        let lo = schema["minimum"].as_f64().unwrap_or(-1000.0);
        let hi = schema["maximum"].as_f64().unwrap_or(lo + 2000.0);
        let t = self.below(1_000_001) as f64 / 1_000_000.0;
        json!(lo + (hi - lo) * t)
    }

    fn string(&mut self, schema: &Value) -> String {
        let min = schema["minLength"].as_u64().unwrap_or(0) as usize;
        let max = schema["maxLength"].as_u64().unwrap_or(min as u64 + 24) as usize;
        let max = max.min(min + 40);
        if let Some(pattern) = schema["pattern"].as_str() {
            let anchored = pattern.trim_start_matches('^').trim_end_matches('$');
            if let Ok(strategy) = proptest::string::string_regex(anchored)
                && let Ok(tree) = strategy.new_tree(&mut self.runner)
            {
                let mut s = tree.current();
                while s.chars().count() < min {
                    s.push('a');
                }
                return s;
            }
        }
        let len = min + self.below((max - min + 1) as u64) as usize;
        (0..len)
            .map(|_| ALPHABET[self.below(ALPHABET.len() as u64) as usize])
            .collect()
    }

    fn array(&mut self, schema: &Value, depth: usize) -> Value {
        let min = schema["minItems"].as_u64().unwrap_or(0);
        let max = schema["maxItems"].as_u64().unwrap_or(3).min(min + 3);
        let len = min + self.below(max - min + 1);
        let items = schema.get("items").cloned().unwrap_or(Value::Bool(true));
        Value::Array((0..len).map(|_| self.at(&items, depth + 1)).collect())
    }

    fn object(&mut self, schema: &Value, depth: usize) -> Value {
        let required: Vec<&str> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut out = Map::new();
        if depth >= MAX_DEPTH {
            return Value::Object(out);
        }
        for (name, sub) in schema["properties"].as_object().into_iter().flatten() {
            // An optional field is there three times in four: its rules are what is tested.
            if required.contains(&name.as_str()) || !self.one_in(4) {
                out.insert(name.clone(), self.at(sub, depth + 1));
            }
        }
        for name in required {
            if !out.contains_key(name) {
                out.insert(name.to_owned(), self.at(&Value::Bool(true), depth + 1));
            }
        }
        // A field the document does not name, as a peer tool sends one.
        if schema["additionalProperties"] != false && self.one_in(6) {
            let name = format!("x_{}", self.word());
            let value = self.at(&Value::Bool(true), MAX_DEPTH);
            out.entry(name).or_insert(value);
        }
        Value::Object(out)
    }
}

/// `part` merged into `schema`: its `properties` added (a part's property schema merged into
/// the parent's), `required` joined, other keywords taken where the parent has none.
fn merge(schema: &mut Value, part: &Value) {
    let (Some(target), Some(part)) = (schema.as_object_mut(), part.as_object()) else {
        return;
    };
    for (key, value) in part {
        match (key.as_str(), target.get_mut(key)) {
            ("properties", Some(Value::Object(props))) => {
                for (name, sub) in value.as_object().into_iter().flatten() {
                    match props.get_mut(name) {
                        Some(existing) => merge(existing, sub),
                        None => {
                            props.insert(name.clone(), sub.clone());
                        }
                    }
                }
            }
            ("required", Some(Value::Array(req))) => {
                for r in value.as_array().into_iter().flatten() {
                    if !req.contains(r) {
                        req.push(r.clone());
                    }
                }
            }
            (_, Some(existing)) if key == "enum" || key == "const" || key == "type" => {
                *existing = value.clone();
            }
            (_, Some(_)) => {}
            (_, None) => {
                target.insert(key.clone(), value.clone());
            }
        }
    }
}
