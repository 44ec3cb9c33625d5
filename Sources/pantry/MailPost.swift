import PantryHTTP
import PantryMail

/// The API posts its messages to the sender, which queues them in its outbox: the API links
/// neither GRDB nor libcurl.
extension MailSender: MailPost {}
