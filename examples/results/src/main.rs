//! Results written for the model (`docs/wire-contract.md` §9.2, §9.3), in
//! process: a task list whose results are limited to 600 bytes (the egress
//! guard cuts a long list at whole items and says how to ask for less), and
//! a mutation that makes the list's earlier results stale (state sync).
//!
//! Run it with `cargo run -p results-example`; it prints what the model
//! reads of three calls.

use std::sync::{Arc, Mutex};

use mcp_fusion::present::Freshness;
use mcp_fusion::{Action, FusionServer, Group, Json, State, ToolError};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The tasks, shared by the actions.
#[derive(Clone, Default)]
struct Tasks(Arc<Mutex<Vec<Task>>>);

#[derive(Clone, Serialize, schemars::JsonSchema)]
struct Task {
    id: u32,
    title: String,
    done: bool,
}

#[derive(Serialize, schemars::JsonSchema)]
struct TaskList {
    tasks: Vec<Task>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ListTasks {
    /// Only the tasks done (true) or not done (false).
    done: Option<bool>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct TaskId {
    /// The task's id.
    id: u32,
}

/// List the tasks.
async fn list_tasks(
    State(tasks): State<Tasks>,
    args: ListTasks,
) -> Result<Json<TaskList>, ToolError> {
    let tasks = tasks
        .0
        .lock()
        .map_err(|_| ToolError::internal("the task list is poisoned"))?;
    let picked = tasks
        .iter()
        .filter(|t| args.done.is_none_or(|done| t.done == done))
        .cloned()
        .collect();
    Ok(Json(TaskList { tasks: picked }))
}

/// Mark a task done.
async fn finish_task(State(tasks): State<Tasks>, args: TaskId) -> Result<String, ToolError> {
    let mut tasks = tasks
        .0
        .lock()
        .map_err(|_| ToolError::internal("the task list is poisoned"))?;
    let task = tasks
        .iter_mut()
        .find(|t| t.id == args.id)
        .ok_or_else(|| ToolError::not_found(format!("No task {}.", args.id)))?;
    task.done = true;
    Ok(format!("Task {} is done.", args.id))
}

fn server() -> FusionServer {
    let tasks = Tasks::default();
    if let Ok(mut list) = tasks.0.lock() {
        list.extend((1..=40).map(|id| Task {
            id,
            title: format!("Task number {id}"),
            done: id % 3 == 0,
        }));
    }
    let group = Group::new("tasks")
        .description("A to-do list.")
        .action(
            Action::new("list_tasks", list_tasks)
                .read_only()
                .reads("tasks")
                .freshness(Freshness::Seconds(10))
                .egress_limit(600)
                .narrowed_by(["done"]),
        )
        .action(Action::new("finish_task", finish_task).invalidates("tasks.*"));
    FusionServer::builder("results-example", "1.0.0")
        .state(tasks)
        .group(group)
        .build()
        .expect("a valid server")
}

fn show(what: &str, result: &mcp_fusion::model::CallToolResult) {
    println!("== {what} (isError: {:?})", result.is_error);
    for block in &result.content {
        if let Some(text) = block.as_text() {
            println!("{}", text.text);
        }
    }
    println!();
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = server();
    let listed = server
        .call("tasks", json!({"action": "list_tasks"}))
        .await?;
    show("list_tasks: 40 tasks, cut to 600 bytes", &listed);
    let finished = server
        .call("tasks", json!({"action": "finish_task", "id": 1}))
        .await?;
    show("finish_task: the stale-reads notice first", &finished);
    let missing = server
        .call("tasks", json!({"action": "finish_task", "id": 99}))
        .await?;
    show("finish_task of no task: an error, no notice", &missing);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(result: &mcp_fusion::model::CallToolResult) -> Vec<String> {
        result
            .content
            .iter()
            .filter_map(|b| b.as_text().map(|t| t.text.clone()))
            .collect()
    }

    #[tokio::test]
    async fn the_list_is_cut_and_the_mutation_names_it_stale() {
        let server = server();
        let listed = server
            .call("tasks", json!({"action": "list_tasks"}))
            .await
            .unwrap();
        assert_eq!(
            texts(&listed)[1],
            "<egress_notice>This result was cut to fit the limit of 600 bytes: 3230 of its 3800 bytes were left out. 6 of 40 items are shown. For a smaller result, call it again with: done.</egress_notice>"
        );
        let finished = server
            .call("tasks", json!({"action": "finish_task", "id": 1}))
            .await
            .unwrap();
        assert_eq!(
            texts(&finished),
            [
                "<stale_reads cause=\"tasks.finish_task\" domains=\"tasks.*\">This call changed tasks.*: results read before it are stale. Repeat your earlier calls of tasks.list_tasks (with the same arguments) before relying on what they returned.</stale_reads>",
                "Task 1 is done.",
            ]
        );
    }
}
