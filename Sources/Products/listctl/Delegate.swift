import ArgumentParser
import Dispatch
import Glibc
import ListClientCore
import ListModel
import ListRPC

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Listctl {
    struct Delegate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delegate",
            abstract: "Vet edits with a command: listd asks before applying each matching edit.",
            discussion: """
                For each question COMMAND runs (with its arguments, never through a shell) with the \
                question as JSON on stdin: {"question": "shouldAdd", "list": …, "item": …, "origin": …}. \
                Exit status 0 allows; any other status denies, with what COMMAND printed as the reason \
                (COMMAND need not read its question). Each question is reported as it is answered: \
                allowed, denied, or timed out (listd then applied --on-timeout). At most --jobs \
                commands run at once (one per CPU by default); more questions wait their turn. \
                When listd goes away (a restart), listctl connects again and registers again, \
                unless --no-reconnect. When listd stops consulting this delegate (it timed out \
                three times, each a burst of questions out together counting once) listctl says \
                so on stderr and exits with status 4, so a service manager can restart it \
                (listd-rule@NAME.service does). With --json, one object per question: {question, \
                list, item, name, with, vote, reason, counted, appliedOnTimeout, elapsedMs}.
                """
        )
        @OptionGroup var options: ConnectionOptions

        @Option(
            name: .customLong("question"),
            help: ArgumentHelp("Only this question (shouldAdd, shouldRemove, …); repeatable.", valueName: "question"),
            completion: .list(DelegateQuestion.allCases.map(\.rawValue))
        )
        var questions: [String] = []

        @Option(
            name: .customLong("list"),
            help: ArgumentHelp("Only edits of this list (name or id); repeatable.", valueName: "list"),
            completion: ListCompletion.listNames
        )
        var lists: [String] = []

        @Option(
            help: ArgumentHelp(
                "How long listd waits for COMMAND, in milliseconds (default 2000, at most 30000).",
                valueName: "ms"
            )
        )
        var timeout: Int?

        @Option(
            help: "What a question COMMAND does not answer in time counts as: allow or deny.",
            completion: .list(["allow", "deny"])
        )
        var onTimeout: String?

        @Option(help: "The name shown in denials (default: the command's name).")
        var name: String?

        @Option(
            help: ArgumentHelp(
                "Commands run at once, at most (default: the number of CPUs); more questions wait their turn.",
                valueName: "count"
            )
        )
        var jobs: Int?

        @Flag(help: "Exit with status 4 when listd goes away, instead of connecting and registering again.")
        var noReconnect = false

        @Argument(
            parsing: .postTerminator,
            help: ArgumentHelp("The command and its arguments, after --.", valueName: "command")
        )
        var command: [String] = []

        func validate() throws {
            if command.isEmpty {
                throw ValidationError("Give the command to run after --, for example: listctl delegate -- ./vet.sh")
            }
            if !canRun(command[0]) {
                throw ValidationError("cannot run “\(command[0])”: no such program in PATH, or it is not executable.")
            }
            for question in questions where DelegateQuestion(rawValue: question) == nil {
                throw ValidationError(
                    "“\(question)” is not a question; listd asks \(DelegateQuestion.allCases.map(\.rawValue).joined(separator: ", "))."
                )
            }
            if let onTimeout, TimeoutVerdict(rawValue: onTimeout) == nil {
                throw ValidationError("--on-timeout must be allow or deny.")
            }
            if let jobs, !(1...256).contains(jobs) {
                throw ValidationError("--jobs must be between 1 and 256.")
            }
        }

        func run() throws {
            ignoreBrokenPipes()
            endCommandsWithListctl()
            // A clear of 30 ticked items asks 30 questions at once: run all 30 commands together
            // and each takes as long as all of them (a script starting python twice per question
            // missed listd's 2 s together). A few at a time, the rest waiting, each finishes soon.
            let slots = DispatchSemaphore(value: jobs ?? max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
            try options.withClient { first in
                var client = first
                var again = false
                while true {
                    try serve(client, slots: slots, again: again)
                    guard !noReconnect else {
                        writeError("listctl: listd closed the connection.")
                        throw ExitCode(ListctlExit.failed.rawValue)
                    }
                    writeError("listctl: listd closed the connection; connecting again to register again.")
                    client = options.connection.reconnect(brief: false)
                    again = true
                }
            }
        }

        /// Registers on `client` and answers its questions until listd closes the connection.
        private func serve(_ client: BlockingListClient, slots: DispatchSemaphore, again: Bool) throws {
            let command = self.command
            let json = options.json
            let name = self.name ?? command[0].split(separator: "/").last.map(String.init) ?? command[0]
            let registered = try client.call(
                RegisterDelegate.self,
                .init(
                    name: name,
                    questions: questions.isEmpty ? nil : questions.compactMap(DelegateQuestion.init(rawValue:)),
                    lists: lists.isEmpty ? nil : lists.map(reference),
                    timeoutMs: timeout,
                    onTimeout: onTimeout.flatMap(TimeoutVerdict.init(rawValue:))
                )
            )
            if again {
                writeError("listctl: registered again as delegate “\(registered.name)”.")
            } else if !json {
                print(
                    "Registered as delegate “\(registered.name)” for \(registered.questions.map(\.rawValue).joined(separator: ", ")); Ctrl-C to stop."
                )
            }
            let answers = client.answers
            let limit = Duration.milliseconds(registered.timeoutMs)
            while let message = client.next() {
                switch message {
                case .question(let question, let params, let id):
                    // Each question on a thread of its own, waiting for one of the slots: listd
                    // asks several at once (a clear asks one per item), and a slow command must
                    // not hold up reading. Not Dispatch's pool: a command blocks its thread
                    // until it exits.
                    let asked = ContinuousClock.now
                    startThread {
                        guard let params else {
                            _ = answers.send(DelegateAnswer(allow: true), to: id)
                            return
                        }
                        slots.wait()
                        let answer = vet(question, params, with: command, name: name)
                        slots.signal()
                        _ = answers.send(answer, to: id)
                        let vote = Vote(
                            question: question,
                            params: params,
                            answer: answer,
                            elapsed: ContinuousClock.now - asked,
                            limit: limit,
                            onTimeout: registered.onTimeout
                        )
                        if json { printJSON(vote) } else { print(vote.sentence) }
                    }
                case .delegateDropped(let dropped):
                    writeError("listctl: listd no longer consults delegate “\(dropped.name)”: \(dropped.reason)")
                    throw ExitCode(ListctlExit.failed.rawValue)
                case .event, .briefEvent, .fileRejection, .denial, .delegatesChanged:
                    continue
                }
            }
        }
    }
}

/// Runs `command` on one question; its exit status is the answer, its output the reason for a deny.
private func vet(
    _ question: DelegateQuestion,
    _ params: DelegateQuestionParams,
    with command: [String],
    name: String
)
    -> DelegateAnswer
{
    let input = (try? questionJSON(question, params)).map(Array.init) ?? []
    let (status, output) = runCommand(command, input: input)
    let reason = output.trimmedOfWhitespace
    return status == 0
        ? DelegateAnswer(allow: true)
        : DelegateAnswer(allow: false, reason: reason.isEmpty ? "\(name) exited with status \(status)" : reason)
}

/// What became of one question: COMMAND's vote, and whether it counted (it came within listd's
/// time limit, as far as listctl can tell) or listd applied `onTimeout` instead.
private struct Vote: Encodable {
    var question: DelegateQuestion
    var list: String?
    var item: String?
    var with: String?
    var name: String?
    var vote: String
    var reason: String?
    var counted: Bool
    /// When it did not count: what listd counted instead.
    var appliedOnTimeout: TimeoutVerdict?
    var elapsedMs: Int
    private var summary: String

    init(
        question: DelegateQuestion,
        params: DelegateQuestionParams,
        answer: DelegateAnswer,
        elapsed: Duration,
        limit: Duration,
        onTimeout: TimeoutVerdict
    ) {
        self.question = question
        list = params.list?.name
        item = params.item
        with = params.with
        name = params.name
        vote = answer.allow ? "allow" : "deny"
        reason = answer.reason
        counted = elapsed < limit
        appliedOnTimeout = counted ? nil : onTimeout
        let (seconds, attoseconds) = elapsed.components
        elapsedMs = Int(seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
        summary = "\(question.rawValue) \(listctl.summary(params))"
    }

    private enum CodingKeys: String, CodingKey {
        case question, list, item, with, name, vote, reason, counted, appliedOnTimeout, elapsedMs
    }

    var sentence: String {
        let said = vote == "allow" ? "allowed" : "denied (\(reason ?? ""))"
        guard let appliedOnTimeout else { return "\(summary): \(said)" }
        let applied = appliedOnTimeout == .allow ? "allowed" : "denied"
        return "\(summary): timed out after \(elapsedMs) ms; listd applied --on-timeout and \(applied) it (the command \(said), too late)"
    }
}

/// The JSON a delegate command reads on stdin: the question's name beside every field of its
/// params as listd sent them (`DelegateQuestionParams`, the type listd encodes: a field listd adds
/// reaches the command with no change here).
private func questionJSON(_ question: DelegateQuestion, _ params: DelegateQuestionParams) throws -> Data {
    struct Line: Encodable {
        var question: DelegateQuestion
        var params: DelegateQuestionParams
        enum CodingKeys: String, CodingKey { case question }

        func encode(to encoder: any Encoder) throws {
            try params.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(question, forKey: .question)
        }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(Line(question: question, params: params))
}

func summary(_ params: DelegateQuestionParams) -> String {
    var parts: [String] = []
    if let item = params.item { parts.append("“\(item)”") }
    if let with = params.with { parts.append("→ “\(with)”") }
    if let name = params.name { parts.append("“\(name)”") }
    if let list = params.list { parts.append("on \(list.name)") }
    return parts.joined(separator: " ")
}
