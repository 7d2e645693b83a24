//! JSON Schema validation of vector files (`utf8conform vectors check`):
//! the CLI's job, so that the harness library needs no schema validator.

use serde_json::Value;
use utf8conform::vectors::SCHEMA_JSON;

/// Validates a file's JSON against [`SCHEMA_JSON`]; every violation, each
/// with its JSON pointer.
pub fn violations(text: &str) -> Result<Vec<String>, String> {
    let schema: Value = serde_json::from_str(SCHEMA_JSON).expect("the built-in schema is JSON");
    let validator = jsonschema::draft202012::new(&schema)
        .map_err(|e| format!("the built-in schema is invalid: {e}"))?;
    let instance: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    Ok(validator
        .iter_errors(&instance)
        .map(|e| format!("{}: {}", e.instance_path(), e))
        .collect())
}
