"""The review screen's judge-run controller (J): the judge screen, and the background run it
starts, a thread worker (tui/judge_worker.py) that posts JudgeProgress and JudgeFinished.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from lmmreview.db.watch import REWRITTEN
from lmmreview.engine.scoring import Judge
from lmmreview.tui.messages import JudgeFinished, JudgeProgress
from lmmreview.tui.screens import JudgeScreen

# A judge run loads when first asked for: the first screen comes that much sooner.
if TYPE_CHECKING:
    from lmmreview.tui.judge_run import JudgeSetup
    from lmmreview.tui.judge_worker import BackgroundJudge
    from lmmreview.tui.review_screen import ReviewScreen


class JudgeControl:
    """At most one background judge run of the screen's dataset, and its screen."""

    def __init__(self, screen: ReviewScreen) -> None:
        self.screen = screen
        self._judge: BackgroundJudge | None = None
        self._judge_screen: JudgeScreen | None = None
        self.stopped = ""  # a run stopped by a change of the file: what it said

    @property
    def running(self) -> bool:
        """A run is under way (until its JudgeFinished is handled)."""
        return self._judge is not None

    def open(self) -> None:
        """Show the judge screen: what J would run, its progress, start and stop."""
        app = self.screen.app
        if self._judge_screen is not None:
            app.push_screen(self._judge_screen)
            return
        from lmmreview.tui.judge_run import judge_setup

        setup = judge_setup(self.screen.settings)
        self._judge_screen = JudgeScreen(
            self._description(setup),
            partial(self.start, setup) if setup.api_key is not None else None,
            self.stop,
        )
        app.push_screen(self._judge_screen)

    def _description(self, setup: JudgeSetup) -> str:
        """What J would run, or, with no judge configured, what to set."""
        if setup.api_key is None:
            return (
                f"No LLM judge configured. Set the environment variable {setup.api_key_env} "
                "to the API key, then start lmmreview again. That name is the setting "
                f"judge.api_key_env in {self.screen.review_app.settings_path or 'the settings'}"
                "; a local server needs no key: set judge.base_url there instead."
            )
        runs = setup.runs
        session = self.screen.session
        dataset = session.dataset if session else "?"
        return (
            f"LLM judge {setup.model} at {setup.shown_url or 'the OpenAI API'} on {dataset}: "
            f"open answers graded {runs} run{'s' if runs != 1 else ''} each, choice rows "
            "extracted where matching fails."
        )

    def start(self, setup: JudgeSetup) -> None:
        """Start a judge run of the current dataset in a thread worker; the list shows its
        scores as they come."""
        screen, session = self.screen, self.screen.session
        if session is None or self._judge is not None:
            return
        from lmmreview.tui.judge_worker import BackgroundJudge

        self._judge = BackgroundJudge(setup, screen.review_app.db_path, session.dataset)
        screen.run_worker(
            partial(self._judge.run, screen.post_message),
            name="judge",
            group="judge",
            description=f"judge run of {session.dataset} with {setup.model}",
            thread=True,
        )
        running = Judge("llm", setup.model, "")  # the reference prompts, as `judge` asks
        if running != session.judge:  # its scores land in the list as they come
            screen.reload(running)
            screen.review_app.tell(
                f"Showing the scores of {setup.model} as they come (w shows another judge)."
            )
        screen.show_status()

    def progress(self, message: JudgeProgress) -> None:
        if self._judge_screen is not None:
            self._judge_screen.progress(message.done, message.total, message.status)

    def finished(self, message: JudgeFinished) -> None:
        screen = self.screen
        self._judge = None
        if message.changed is not None:
            self.stopped = f"judge run {message.outcome}"
        if message.changed == REWRITTEN:
            screen.review_app.database.rewritten()
            screen.writer.notice_moved()
        screen.notify(f"Judge run {message.outcome}.", title="Judge")
        if self._judge_screen is not None:
            self._judge_screen.progress(1, 1, f"Judge run {message.outcome}.")
        screen.show_status()

    def stop(self) -> None:
        if self._judge is not None:
            self._judge.stop()
