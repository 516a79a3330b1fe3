// The workbench's code editors: CodeMirror 6 with TypeScript highlighting (the kernel language
// is AssemblyScript, TypeScript's syntax), compile diagnostics as lint markers at their line,
// and racing accesses' lines highlighted (a decoration field the race panel sets).
import { basicSetup } from 'codemirror';
import { javascript } from '@codemirror/lang-javascript';
import { lintGutter, setDiagnostics, type Diagnostic as CmDiagnostic } from '@codemirror/lint';
import { EditorState, StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, EditorView, type DecorationSet } from '@codemirror/view';

export interface LineMark { line: number; column?: number; message: string; severity: 'error' | 'warning' }

const setRaceLines = StateEffect.define<{ line: number; label: string }[]>();

/** Lines of racing accesses: a line decoration each (class cm-race-line, the label as its title). */
const raceLines = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setRaceLines)) continue;
      const marks = [...new Map(e.value.filter((l) => l.line >= 1 && l.line <= tr.state.doc.lines).map((l) => [l.line, l])).values()]
        .sort((a, b) => a.line - b.line)
        .map((l) => Decoration.line({ class: 'cm-race-line', attributes: { title: l.label, 'data-race-line': String(l.line) } }).range(tr.state.doc.line(l.line).from));
      deco = Decoration.set(marks);
    }
    // An edit makes the old race results stale: drop their marks.
    return tr.docChanged ? Decoration.none : deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

export class CodeEditor {
  readonly view: EditorView;

  constructor(parent: HTMLElement, doc: string, opts: { testid: string; onChange?: () => void; extra?: Extension[] }) {
    this.view = new EditorView({
      parent,
      state: EditorState.create({
        doc,
        extensions: [basicSetup, javascript({ typescript: true }), lintGutter(), raceLines,
          EditorView.updateListener.of((u) => { if (u.docChanged) opts.onChange?.(); }), ...(opts.extra ?? [])],
      }),
    });
    this.view.dom.dataset.testid = opts.testid;
  }

  get text(): string { return this.view.state.doc.toString(); }

  set text(t: string) {
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: t } });
  }

  /** Shows compile problems as lint markers (gutter, underline, hover) at their lines. */
  setMarks(marks: LineMark[]): void {
    const doc = this.view.state.doc;
    const diags: CmDiagnostic[] = marks.map((m) => {
      const line = doc.line(Math.min(Math.max(1, m.line), doc.lines));
      const from = Math.min(line.to, line.from + Math.max(0, (m.column ?? 1) - 1));
      return { from: from === line.to ? line.from : from, to: line.to, severity: m.severity, message: m.message };
    });
    this.view.dispatch(setDiagnostics(this.view.state, diags));
  }

  /** Highlights racing accesses' lines (an empty list clears them) and scrolls to the first. */
  setRaceLines(lines: { line: number; label: string }[]): void {
    const effects: StateEffect<unknown>[] = [setRaceLines.of(lines)];
    const first = lines.map((l) => l.line).filter((l) => l >= 1 && l <= this.view.state.doc.lines).sort((a, b) => a - b)[0];
    if (first !== undefined) effects.push(EditorView.scrollIntoView(this.view.state.doc.line(first).from, { y: 'center' }));
    this.view.dispatch({ effects });
  }
}
