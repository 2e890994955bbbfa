// A CalDAV handler's writes: a PUT or DELETE checked against its preconditions (If-Match,
// If-None-Match, the size, the calendar data) and handed to the shell as a `TaskWrite` for
// listd, which decides it.
import ListModel

extension DAVHandler {
    /// `If-Match`'s revision: nil when absent; `.failure` when it names no current ETag.
    func matched(_ request: DAVRequest, _ existing: TaskEntry?) -> Result<Revision?, DAVResponse> {
        guard let ifMatch = request.ifMatch?.trimmingWhitespace(), !ifMatch.isEmpty else { return .success(nil) }
        let stale = DAVResponse.text(412, "This task changed since your copy (its ETag is not the one sent): sync, then edit again.")
        guard let existing else { return .failure(stale) }
        if ifMatch == "*" { return .success(existing.stamp.revision) }
        let tags = ifMatch.split(separator: ",").map { $0.trimmingWhitespace().replacingPrefix("W/", with: "") }
        guard tags.contains(existing.etag) else { return .failure(stale) }
        return .success(existing.stamp.revision)
    }

    func put(_ path: DAVPath, _ request: DAVRequest) -> DAVAnswer {
        guard case .task(let id, let name) = path else {
            return .respond(.text(405, "A task is PUT into a list's collection: /caldav/lists/ID/NAME.ics."))
        }
        guard let tasks = book.lists[id] else { return .respond(.text(409, "No such list (deleted?): its collection is gone.")) }
        guard request.body.count <= Self.maximumResource else {
            return .respond(.precondition(403, DAVName(DAVNamespace.caldav, "max-resource-size"), "A task is at most \(Self.maximumResource) bytes."))
        }
        let existing = tasks.entry(href: name)
        if request.ifNoneMatch?.trimmingWhitespace() == "*", existing != nil {
            return .respond(.text(412, "A task is here already (If-None-Match: *)."))
        }
        let basedOn: Revision?
        switch matched(request, existing) {
        case .success(let revision): basedOn = revision
        case .failure(let response): return .respond(response)
        }
        let task: ClientTask
        do throws(TaskReadError) {
            let calendar: ICalendarComponent
            do throws(ICalendarError) {
                calendar = try ICalendar.read(String(decoding: request.body, as: UTF8.self))
            } catch {
                return .respond(.precondition(403, DAVName(DAVNamespace.caldav, "valid-calendar-data"), error.description))
            }
            task = try ClientTask(calendar: calendar)
        } catch {
            let condition = error == .notOneTask ? "supported-calendar-component" : error.precondition
            return .respond(.precondition(403, DAVName(DAVNamespace.caldav, condition), error.description))
        }
        if let other = tasks.ordered.first(where: { $0.uid == task.uid && $0.href != name }) {
            return .respond(
                .xml(
                    403,
                    DAVXML.error(
                        DAVName(DAVNamespace.caldav, "no-uid-conflict"),
                        sentence: "Another task here has this UID: \(DAVPath.task(id, other.href).path)."
                    )
                )
            )
        }
        var merging: TaskEntry?
        let key = ListText.key(task.summary)
        if let same = tasks.entries[key], same.href != name, existing == nil { merging = same }
        return .write(TaskWrite(kind: .put(task), list: id, href: name, existing: existing, merging: merging, basedOn: basedOn))
    }

    func delete(_ path: DAVPath, _ request: DAVRequest) -> DAVAnswer {
        guard case .task(let id, let name) = path else {
            return .respond(.text(403, "A list is deleted with “listctl delete”, not from a tasks app."))
        }
        guard let existing = book.lists[id]?.entry(href: name) else { return .respond(.text(404, "No such task (taken off already?).")) }
        switch matched(request, existing) {
        case .success(let revision):
            return .write(TaskWrite(kind: .delete, list: id, href: name, existing: existing, merging: nil, basedOn: revision))
        case .failure(let response):
            return .respond(response)
        }
    }
}
