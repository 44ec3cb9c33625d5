/// Whose grocery list or cart a row belongs to: a person's own (their user id), or a household's,
/// which no user id can spell (a user id has no ':'). The worker queries take it as their `userId`.
package enum ListOwner {
    package static func household(_ householdId: HouseholdID) -> String { "household:" + householdId }

    /// The list or cart an event changes.
    package static func of(_ userId: UserID, household: HouseholdID?) -> String { household.map(Self.household) ?? userId }
}
