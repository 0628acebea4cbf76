//! [`Assembly`]: what every capability of a server is assembled with, and
//! [`Callable`], one capability's guarded path — the same for an action, a
//! prompt, a resource, a resource template and a completer: guards (auth →
//! rate limit → concurrency → timeout) → validation → layers (server, then
//! group, then its own) → handler.

use std::sync::Arc;

use super::BuildError;
use crate::guard::{
    ActionGate, AuthRule, ConcurrencyGuard, Gates, GuardChain, GuardSettings, Guards,
};
use crate::handler::{CallContext, StateNeed, States};
use crate::metrics_names::ActionLabels;
use crate::pipeline::{ActionService, BoxLayer, CallService, Validate};
use crate::schema::SchemaProfile;
use crate::validation::SchemaValidator;

/// What every capability of a server is assembled with; the server keeps it
/// for the capabilities added while it runs.
pub(crate) struct Assembly {
    /// The layers around every capability's handler (`ServerBuilder::layer`).
    pub server_layers: Vec<BoxLayer>,
    /// The token verifier, the rate-limit store and key.
    pub guards: GuardSettings,
    /// The application states.
    pub states: Arc<States>,
    /// Which form of the schemas the tools' listings show.
    pub schema_profile: SchemaProfile,
    /// The server's egress limit in bytes, for the actions without their
    /// own (`usize::MAX`: none).
    pub egress_limit: usize,
    /// The state machines and the sessions' states
    /// (`ServerBuilder::state_machine`).
    pub gates: Arc<Gates>,
}

/// One capability's guarded path, ready to be called.
pub(crate) struct Callable {
    /// Guards, validation, layers and handler.
    pub service: ActionService,
    /// Its concurrency guard, if it has one.
    pub concurrency: Option<Arc<ConcurrencyGuard>>,
    /// Its metric labels.
    pub labels: ActionLabels,
    /// To whom the lists show it.
    pub visibility: Visibility,
}

/// A predicate on the caller ([`CallContext`]): whether lists show a
/// capability to it (`visible_when`).
pub(crate) type VisibleFn = Arc<dyn Fn(&CallContext) -> bool + Send + Sync>;

/// To whom the lists (`tools/list`, `prompts/list`, …, and the valid names an
/// unknown name's error gives) show a capability: the same decision for
/// every kind. A capability that needs credentials is hidden from an
/// anonymous caller (one with credentials but without a scope still sees it,
/// and using it says which scope is missing); `visible_when` predicates
/// (a group's and its action's, or a capability's own) must all hold.
/// Only the lists: a call of a hidden capability still takes its guarded
/// path, whose guards and handler decide.
/// A state-gated action is shown only while its session's state allows it
/// (the same decision its gate takes for a call).
#[derive(Clone, Default)]
pub(crate) struct Visibility {
    pub auth: AuthRule,
    pub when: Vec<VisibleFn>,
    pub gate: Option<ActionGate>,
}

impl Visibility {
    /// Whether the lists show the capability to the caller of `ctx`.
    pub fn shows_to(&self, ctx: &CallContext) -> bool {
        self.shows_in_some_state_to(ctx) && !self.gate_hides_from(ctx)
    }

    /// Whether a tool search finds the capability for the caller of `ctx`:
    /// the lists show it ([`shows_to`](Self::shows_to)) and the caller may
    /// use it — a caller with credentials but without a scope it needs is
    /// listed it (using it says which scope is missing) but never finds it.
    pub fn found_by(&self, ctx: &CallContext) -> bool {
        self.shows_to(ctx) && self.auth.admits(ctx.principal())
    }

    /// Whether the caller of `ctx` may see the capability in some state of
    /// its session: [`shows_to`](Self::shows_to) without the state gate
    /// (the contract of a gated action is listed apart, `GATED_META_KEY`).
    pub fn shows_in_some_state_to(&self, ctx: &CallContext) -> bool {
        self.auth.lets_see(ctx.principal()) && self.when.iter().all(|when| when(ctx))
    }

    /// Whether the state gate alone hides the capability from the caller of
    /// `ctx` now.
    pub fn gated_now_for(&self, ctx: &CallContext) -> bool {
        self.gate_hides_from(ctx) && self.shows_in_some_state_to(ctx)
    }

    /// Whether the lists show the capability to every caller alike: it
    /// needs no credentials, has no `visible_when` predicate and no state
    /// gate. A list or read that depends on one that does not is never
    /// cached `"public"` (SEP-2549 `cacheScope`).
    pub fn is_for_everyone(&self) -> bool {
        !self.auth.needs_credentials() && self.when.is_empty() && self.gate.is_none()
    }

    /// Whether the capability's state gate, if any, hides it from the
    /// caller of `ctx` in its session's state now.
    fn gate_hides_from(&self, ctx: &CallContext) -> bool {
        self.gate
            .as_ref()
            .is_some_and(|gate| !gate.shows_to(ctx.caller()))
    }
}

/// The parts of one capability's guarded path.
pub(crate) struct Parts<'a> {
    /// The name its build errors give (a dotted action, a prompt, a URI).
    pub name: &'a str,
    /// The handler, as the innermost service.
    pub handler: CallService,
    /// The input schema's validator; `None`: no validation.
    pub validator: Option<SchemaValidator>,
    /// An action's output schema's validator.
    pub output: Option<SchemaValidator>,
    /// An action's presenter.
    pub presentation: Option<std::sync::Arc<crate::present::Presentation>>,
    /// Its guards, with the defaults it inherits already applied.
    pub guards: Guards,
    /// Its layers inside the server's, outermost first (a group's, then its
    /// own).
    pub layers: &'a [&'a [BoxLayer]],
    /// The states its handler's extractors need.
    pub state_needs: &'a [StateNeed],
    /// Whether calling it again is harmless (read-only or idempotent): a
    /// `TIMEOUT` then says so.
    pub retry_safe: bool,
    /// Its metric labels.
    pub labels: ActionLabels,
    /// Its `visible_when` predicates (a group's, then its own).
    pub visible_when: Vec<VisibleFn>,
    /// Its state gate, for an action a state machine names.
    pub gate: Option<ActionGate>,
}

impl Assembly {
    /// The guarded path of `parts`.
    ///
    /// # Errors
    /// [`BuildError::BadGuard`] for guard settings that cannot work;
    /// [`BuildError::MissingState`] for a state the server was not given.
    pub fn callable(&self, parts: Parts<'_>) -> Result<Callable, BuildError> {
        if let Some(reason) = parts.guards.problem(self.guards.verifier.is_some()) {
            return Err(BuildError::BadGuard {
                action: parts.name.to_owned(),
                reason,
            });
        }
        self.check_states(parts.name, parts.state_needs)?;
        let mut service = parts.handler;
        // Layers added first run first: the first layer is the outermost.
        for layers in parts.layers.iter().rev() {
            for layer in layers.iter().rev() {
                service = layer(service);
            }
        }
        for layer in self.server_layers.iter().rev() {
            service = layer(service);
        }
        let validated: ActionService = ActionService::new(Validate {
            validator: parts.validator,
            output: parts.output,
            presentation: parts.presentation,
            inner: service,
        });
        let chain = GuardChain::new(
            &parts.guards,
            &self.guards,
            parts.retry_safe,
            &parts.labels,
            parts.gate.as_ref(),
        );
        Ok(Callable {
            service: chain.around(validated),
            concurrency: chain.concurrency,
            labels: parts.labels,
            visibility: Visibility {
                auth: parts.guards.auth,
                when: parts.visible_when,
                gate: parts.gate,
            },
        })
    }

    /// Checks that the server has every state in `needs`.
    ///
    /// # Errors
    /// [`BuildError::MissingState`] naming the first one missing.
    pub fn check_states(&self, name: &str, needs: &[StateNeed]) -> Result<(), BuildError> {
        match needs.iter().find(|(id, _)| !self.states.contains(*id)) {
            Some((_, state)) => Err(BuildError::MissingState {
                action: name.to_owned(),
                state: (*state).to_owned(),
            }),
            None => Ok(()),
        }
    }
}
