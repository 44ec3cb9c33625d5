/// Why a command was refused: a stable machine-readable `code` and a message for people.
package struct Rejection: Error, Sendable, Equatable {
    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Stable codes: clients switch on these, so a code is never renamed or reused.
    package enum Code: String, Sendable, Codable, CaseIterable {
        // Input shape (raised by the adapters that decode commands).
        case malformedJSON = "malformed_json"
        case invalidUTF8 = "invalid_utf8"
        case tooLarge = "too_large"
        case unknownCommand = "unknown_command"
        case invalidField = "invalid_field"
        case invalidCommandId = "invalid_command_id"
        // Rules of the domain.
        case invalidUserId = "invalid_user_id"
        case userExists = "user_exists"
        case invalidUsername = "invalid_username"
        case usernameTaken = "username_taken"
        case invalidEmail = "invalid_email"
        case emailTaken = "email_taken"
        case invalidPasswordHash = "invalid_password_hash"
        case unknownUser = "unknown_user"
        case invalidRecipeId = "invalid_recipe_id"
        case invalidTitle = "invalid_title"
        case invalidImageURL = "invalid_image_url"
        case invalidIngredient = "invalid_ingredient"
        case invalidAmount = "invalid_amount"
        case invalidUnit = "invalid_unit"
        case alreadySaved = "already_saved"
        case notSaved = "not_saved"
        case noSuchItem = "no_such_item"
        case unchanged = "unchanged"
        case alreadyUsed = "already_used"
        case invalidDelta = "invalid_delta"
        case cartOutOfRange = "cart_out_of_range"
        case invalidText = "invalid_text"
        case unknownRecipe = "unknown_recipe"
        case notInRecipe = "not_in_recipe"
        case commandIdReused = "command_id_reused"
        case invalidMinutes = "invalid_minutes"
        /// A point for a recipe that is not cooking (`StartCooking` first).
        case notCooking = "not_cooking"
        /// Faster than a person: the user's `Pace` for points or tips.
        case paceExceeded = "pace_exceeded"
        /// A per-user bound (`Decider.maxGroceryItems` and the others) would be passed.
        case limitReached = "limit_reached"
        /// A session revoked already (logged out, or refreshed: a refresh is single-use).
        case alreadyRevoked = "already_revoked"
        // Households.
        /// Creating or joining one while already a member of one (one at a time).
        case alreadyInHousehold = "already_in_household"
        case notInHousehold = "not_in_household"
        /// Inviting, revoking an invite, removing a member or handing over: the owner's to do.
        case notHouseholdOwner = "not_household_owner"
        /// The owner leaving while others remain: hand the household over first.
        case ownerMustHandOver = "owner_must_hand_over"
        case notHouseholdMember = "not_household_member"
        case householdFull = "household_full"
        case noSuchInvite = "no_such_invite"
        case inviteUsed = "invite_used"
        case inviteExpired = "invite_expired"
        case inviteRevoked = "invite_revoked"
        // Password resets.
        /// Not the latest link made for the account, or not a link at all.
        case resetTokenInvalid = "reset_token_invalid"
        /// Used already, or the password changed since it was made.
        case resetTokenUsed = "reset_token_used"
        case resetTokenExpired = "reset_token_expired"
    }
}
