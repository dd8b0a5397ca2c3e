//! `--tool` and `--tool-params`: the declared tools and their commands.

use std::fs;

use agui_alloc::conversation::Conversation;
use agui_alloc::model::Tool;
use serde_json::Value;

use crate::Failure;

/// A declared tool and the command that answers it.
pub(crate) struct ToolCommand {
    pub(crate) name: String,
    pub(crate) command: String,
}

/// Parses `--tool` and `--tool-params` and declares the tools.
pub(crate) fn declare_tools(
    conv: &mut Conversation,
    tools: &[String],
    params: &[String],
) -> Result<Vec<ToolCommand>, Failure> {
    let mut commands = Vec::new();
    for spec in tools {
        let (name, command) = split_spec(spec, "--tool", "NAME=COMMAND")?;
        commands.push(ToolCommand {
            name: name.to_owned(),
            command: command.to_owned(),
        });
    }
    for spec in params {
        let (name, _) = split_spec(spec, "--tool-params", "NAME=FILE")?;
        if !commands.iter().any(|c| c.name == name) {
            return Err(Failure::usage(format!(
                "--tool-params {spec}: no --tool named '{name}'"
            )));
        }
    }
    for tool in &commands {
        conv.declare_tool(Tool {
            name: tool.name.clone(),
            description: format!(
                "The user's device runs '{}' and answers with its result.",
                tool.name
            ),
            parameters: Some(schema_for(&tool.name, params)?),
            metadata: None,
        });
    }
    Ok(commands)
}

fn split_spec<'a>(spec: &'a str, flag: &str, shape: &str) -> Result<(&'a str, &'a str), Failure> {
    spec.split_once('=')
        .filter(|(name, rest)| !name.trim().is_empty() && !rest.trim().is_empty())
        .map(|(name, rest)| (name.trim(), rest))
        .ok_or_else(|| Failure::usage(format!("{flag} '{spec}': expected {shape}")))
}

/// The tool's parameter schema: its `--tool-params` file, or `{"type":"object"}`.
fn schema_for(name: &str, params: &[String]) -> Result<Value, Failure> {
    let file = params
        .iter()
        .filter_map(|spec| spec.split_once('='))
        .find(|(n, _)| n.trim() == name)
        .map(|(_, file)| file);
    let Some(file) = file else {
        return Ok(serde_json::json!({"type": "object"}));
    };
    let text = fs::read_to_string(file)
        .map_err(|e| Failure::usage(format!("--tool-params {name}={file}: cannot read: {e}")))?;
    serde_json::from_str(&text)
        .map_err(|e| Failure::usage(format!("--tool-params {name}={file}: not JSON: {e}")))
}
