//! [`Place`]: where a tool, prompt, resource or template is in its list,
//! which a `nextCursor` names (`server::adapter::pagination`).

/// Where an item is in its list: given when it is added, one more than the
/// list's last, and never given again in that list (a removed item's place
/// stays empty; an item added again, or moved to the end, gets a new one).
/// Items are listed in the order of their places, so a cursor that names
/// the place of a page's last item finds the next page however the list
/// changed in between.
pub(crate) type Place = u64;

/// The places of one list: each [`next`](Self::next) is new.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Places {
    given: Place,
}

impl Places {
    /// A place after every place given before.
    pub(crate) fn next(&mut self) -> Place {
        let place = self.given;
        self.given += 1;
        place
    }
}
