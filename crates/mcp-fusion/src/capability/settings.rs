//! The settings every capability takes — an action, a group (as defaults for
//! its actions), a prompt, a resource, a resource template: who may use it
//! (`requires_auth`, `requires_scopes`), how often (`rate_limit`), how many at
//! once (`concurrency`), for how long (`timeout`), and the middleware around
//! its handler (`layer`). One macro writes the same setters on each.

/// The setters of the guards and layers every capability takes, on a type
/// with the fields `guards: Guards`, `layers: Vec<BoxLayer>` and
/// `visible_when: Vec<VisibleFn>`. In the docs, `$calls` names the calls
/// counted ("calls of this action", "`prompts/get` requests of this
/// prompt"), `$this` what is used ("this action"), and `$note` is a line
/// added to each setter's doc (a group's settings are its actions'
/// defaults), or `""`.
macro_rules! settings_setters {
    ($calls:literal, $this:literal, $note:literal) => {
        #[doc = concat!("At most `max_active` ", $calls, " run at once and `max_queue` wait")]
        /// (first in, first out); more are shed at once with `SERVER_BUSY`.
        /// `max_active` must be at least 1 (checked when the server is built).
        /// Replaces a [`concurrency_shared`](Self::concurrency_shared) limit.
        #[doc = $note]
        pub fn concurrency(mut self, max_active: usize, max_queue: usize) -> Self {
            self.guards = self.guards.concurrency(max_active, max_queue);
            self
        }

        #[doc = concat!("Counts the ", $calls, " against `limit`, a concurrency limit")]
        /// shared with every capability given the same one (see
        /// [`SharedConcurrency`](crate::guard::SharedConcurrency)): a call
        /// beyond its running and waiting calls, all together, is shed with
        /// `SERVER_BUSY`, which names the call and says the slots are shared.
        /// Replaces a [`concurrency`](Self::concurrency) limit of its own.
        #[doc = $note]
        pub fn concurrency_shared(mut self, limit: &$crate::guard::SharedConcurrency) -> Self {
            self.guards = self.guards.concurrency_shared(limit);
            self
        }

        #[doc = concat!("Limits the rate of the ", $calls, " (GCRA); over the limit,")]
        /// `RATE_LIMITED` with the time until the next call would pass.
        #[doc = $note]
        pub fn rate_limit(mut self, limit: $crate::guard::RateLimit) -> Self {
            self.guards = self.guards.rate_limit(limit);
            self
        }

        #[doc = concat!("Stops one of the ", $calls, " that runs longer than `limit` (`TIMEOUT`;")]
        /// the handler's future is dropped). The time spent waiting in the
        /// concurrency queue does not count.
        #[doc = $note]
        pub fn timeout(mut self, limit: std::time::Duration) -> Self {
            self.guards = self.guards.timeout(limit);
            self
        }

        #[doc = concat!("The caller must present credentials that carry every one of `scopes` to use ", $this, ":")]
        /// without credentials the call is `AUTH_REQUIRED` (and an anonymous
        /// caller is not shown it in the lists), without a scope `FORBIDDEN`
        /// naming the scopes it lacks. Needs a token verifier on the server
        /// ([`ServerBuilder::auth`](crate::ServerBuilder::auth)).
        #[doc = $note]
        pub fn requires_scopes<I, S>(mut self, scopes: I) -> Self
        where
            I: IntoIterator<Item = S>,
            S: Into<String>,
        {
            self.guards.auth.scopes = scopes.into_iter().map(Into::into).collect();
            self
        }

        #[doc = concat!("The caller must present valid credentials, whatever their scopes, to use ", $this, ":")]
        /// without them the call is `AUTH_REQUIRED`, and an anonymous caller
        /// is not shown it in the lists. Needs a token verifier on the
        /// server ([`ServerBuilder::auth`](crate::ServerBuilder::auth)).
        #[doc = $note]
        pub fn requires_auth(mut self) -> Self {
            self.guards.auth.required = true;
            self
        }

        #[doc = concat!("Shows ", $this, " in the lists (`tools/list`, `prompts/list`, …, and the valid")]
        /// names an unknown name's error gives) only to the callers for whom
        /// `when` holds — the same filter that hides a capability needing
        /// credentials from an anonymous caller. `when` gets the caller's
        /// context ([`CallContext::principal`](crate::CallContext::principal),
        /// [`caller`](crate::CallContext::caller), …) and must be quick: it
        /// runs for every list. Only the lists: a call still takes the
        /// guarded path, whose guards and handler decide. Several calls add
        /// up (all must hold).
        pub fn visible_when(
            mut self,
            when: impl Fn(&$crate::CallContext) -> bool + Send + Sync + 'static,
        ) -> Self {
            self.visible_when.push(std::sync::Arc::new(when));
            self
        }

        #[doc = concat!("Adds a tower layer around the handler of ", $this, " (inside the")]
        /// server-wide layers, after validation): it sees the validated
        /// [`Call`](crate::Call) and returns an [`Output`](crate::handler::Output).
        /// Layers added first run first. See [`from_fn`](crate::from_fn).
        pub fn layer<L>(mut self, layer: L) -> Self
        where
            L: tower::Layer<$crate::pipeline::CallService> + Send + Sync + 'static,
            L::Service: tower::Service<
                    $crate::pipeline::Call,
                    Response = $crate::handler::Output,
                    Error = $crate::error::ToolError,
                > + Clone
                + Send
                + Sync
                + 'static,
            <L::Service as tower::Service<$crate::pipeline::Call>>::Future: Send + 'static,
        {
            self.layers.push($crate::pipeline::box_layer(layer));
            self
        }
    };
}

/// The mutation serializer's setters, on a type with a `guards: Guards`
/// field (an action, a group as defaults for its actions). `$note` is a
/// line added to each setter's doc, or `""`.
macro_rules! serializer_setters {
    ($note:literal) => {
        /// Runs the calls one at a time per value of the input argument
        /// `argument` (e.g. the invoice id: calls on different invoices run
        /// side by side), first come first served; at most
        /// [`DEFAULT_SERIALIZER_QUEUE`](crate::guard::DEFAULT_SERIALIZER_QUEUE)
        /// wait, for at most
        /// [`DEFAULT_SERIALIZER_WAIT`](crate::guard::DEFAULT_SERIALIZER_WAIT);
        /// beyond either, `SERVER_BUSY` (wire contract §10). A waiter that
        /// is cancelled leaves the queue; a holder that is cancelled, times
        /// out or panics releases the key. Shorthand for
        /// `serialized(Serialized::by(argument))`.
        #[doc = $note]
        pub fn serialize_by(self, argument: impl Into<String>) -> Self {
            self.serialized($crate::guard::Serialized::by(argument))
        }

        /// Runs the calls one at a time per key as `setting` says
        /// ([`Serialized`](crate::guard::Serialized): the key, the queue's
        /// bound, the longest wait). A destructive action is serialized per
        /// action unless given a setting.
        #[doc = $note]
        pub fn serialized(mut self, setting: $crate::guard::Serialized) -> Self {
            self.guards = self.guards.serialized(setting);
            self
        }

        /// Runs the calls side by side, also when destructive (which is
        /// otherwise serialized per action).
        #[doc = $note]
        pub fn not_serialized(mut self) -> Self {
            self.guards = self.guards.not_serialized();
            self
        }
    };
}

pub(crate) use serializer_setters;
pub(crate) use settings_setters;
