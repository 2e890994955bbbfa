// listctl's quick path reads `lists`, `show` and `add` as argument-parser does: every form it takes is
// parsed both ways (argument-parser after listctl's own hoisting, as Main runs it) and must give
// the same command; every form it leaves alone goes to argument-parser.
import ArgumentParser
import Testing

@testable import listctl

/// What argument-parser makes of `arguments`, as a `QuickCommand` (nil: another command, or an
/// error).
private func parsedByArgumentParser(_ arguments: [String]) -> QuickCommand? {
    let subcommands = Set(Listctl.configuration.subcommands.compactMap { $0.configuration.commandName })
    let hoisted = Arguments.hoistingSharedOptions(arguments, subcommands: subcommands)
    guard let command = try? Listctl.parseAsRoot(hoisted) else { return nil }
    if let lists = command as? Listctl.Lists {
        return .lists(socket: lists.options.socket, json: lists.options.json)
    }
    if let show = command as? Listctl.Show {
        return .show(list: show.list, socket: show.options.socket, json: show.options.json)
    }
    if let add = command as? Listctl.Add {
        return .add(
            list: add.list,
            items: add.items,
            section: add.section,
            amount: add.amount,
            socket: add.options.socket,
            json: add.options.json
        )
    }
    return nil
}

@Suite struct QuickCommandTests {
    /// Forms the quick path reads: argument-parser reads each the same way.
    @Test(arguments: [
        ["lists"],
        ["lists", "--json"],
        ["--json", "lists"],
        ["lists", "--socket", "/run/l.sock"],
        ["--socket=/run/l.sock", "lists", "--json"],
        ["show", "Groceries"],
        ["show", "42"],
        ["show", "Groceries", "--json"],
        ["show", "--json", "Groceries"],
        ["show", "Groceries", "--socket", "/run/l.sock"],
        ["show", "--socket=/run/l.sock", "Groceries"],
        ["--socket", "/run/l.sock", "show", "Groceries"],
        ["--json", "--socket=/run/l.sock", "show", "Groceries"],
        ["add", "Groceries", "milk"],
        ["add", "Groceries", "milk", "eggs", "rice (2 kg)"],
        ["add", "Groceries", "milk", "--amount", "2 l"],
        ["add", "--section", "Dairy", "Groceries", "milk"],
        ["add", "Groceries", "--section=Dairy", "milk", "--amount=2 l", "--json"],
        ["add", "Groceries", "milk", "--section", ""],
        ["--socket", "/tmp/s", "add", "Groceries", "milk", "--json"],
        ["add", "show", "add"],
    ])
    func aFormTheQuickPathReadsIsReadTheSameByArgumentParser(_ arguments: [String]) throws {
        let quick = try #require(QuickCommand.parse(arguments), "the quick path reads \(arguments)")
        #expect(quick == parsedByArgumentParser(arguments), "\(arguments)")
    }

    /// Forms it leaves to argument-parser: help, mistakes, stdin, options it does not know.
    @Test(arguments: [
        [],
        ["show"],
        ["lists", "Groceries"],
        ["lists", "--help"],
        ["lists", "--json", "--json"],
        ["lists", "--socket"],
        ["lists", "--section", "Dairy"],
        ["lists", "--", "x"],
        ["show", "Groceries", "Hardware"],
        ["show", "--help"],
        ["show", "-h"],
        ["show", "Groceries", "--section", "Dairy"],
        ["show", "--", "-Groceries"],
        ["show", "Groceries", "--socket"],
        ["show", "Groceries", "--socket", "--json"],
        ["show", "Groceries", "--socket="],
        ["show", "Groceries", "--socket", "a", "--socket", "b"],
        ["show", "Groceries", "--json", "--json"],
        ["add", "Groceries"],
        ["add", "Groceries", "-"],
        ["add", "Groceries", "-fresh fish"],
        ["add", "Groceries", "milk", "--bogus"],
        ["--section", "Dairy", "add", "Groceries", "milk"],
        ["--verbose", "show", "Groceries"],
        ["--socket", "show", "Groceries"],
        ["create", "Groceries"],
        ["remove", "Groceries", "milk"],
        ["--help"],
        ["--version"],
    ])
    func aFormItDoesNotReadGoesToArgumentParser(_ arguments: [String]) {
        #expect(QuickCommand.parse(arguments) == nil, "\(arguments)")
    }
}
