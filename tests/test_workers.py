"""The app's one way of background work (app/workers.py) on a real Flet session with no client: named groups where
the newest wins, loops that end with their window, client requests that keep nothing busy."""

import asyncio

from fletkit import new_session

from app.workers import Workers


def test_a_new_search_cancels_the_one_before_even_before_it_began() -> None:
    """Issue 59 item 4: two searches asked for in one breath; the first never starts, the count still comes back
    to zero (before, a task cancelled before its first step never left the count, and ``idle`` waited forever)."""

    async def scenario() -> None:
        session = await new_session(1440)
        workers = Workers(session.page)
        ran: list[str] = []

        async def search(query: str) -> None:
            await asyncio.to_thread(str.strip, query)  # the search's work, in a thread as the library's is
            ran.append(query)

        first = workers.later(search, "alic", group="search")
        workers.later(search, "alice", group="search")
        await asyncio.wait_for(workers.idle(), 10)
        assert ran == ["alice"] and first.cancelled()

    asyncio.run(scenario())


def test_a_running_search_is_cancelled_by_the_next_and_an_emptied_box_cancels_the_last() -> None:
    async def scenario() -> None:
        session = await new_session(1440)
        workers = Workers(session.page)
        began: dict[str, asyncio.Event] = {query: asyncio.Event() for query in ("whi", "white", "rabbit")}
        ended: list[str] = []
        go_on = asyncio.Event()

        async def search(query: str) -> None:
            began[query].set()
            await go_on.wait()
            ended.append(query)

        workers.later(search, "whi", group="search")
        await asyncio.wait_for(began["whi"].wait(), 10)
        workers.later(search, "white", group="search")
        await asyncio.wait_for(began["white"].wait(), 10)
        workers.cancel("search")  # the box emptied
        await asyncio.wait_for(workers.idle(), 10)
        go_on.set()  # had either still been waiting, it would now go on
        assert ended == []  # neither search drew anything

        workers.later(search, "rabbit", group="search")  # a group cancelled is a group still
        await asyncio.wait_for(workers.idle(), 10)
        assert ended == ["rabbit"]

    asyncio.run(scenario())


def test_a_loop_runs_while_its_window_lives_and_ends_with_it() -> None:
    async def scenario() -> None:
        session = await new_session(1440)
        workers = Workers(session.page)
        looks: list[int] = []
        looked = asyncio.Event()

        async def look() -> None:
            looks.append(len(looks))
            if len(looks) == 3:
                looked.set()

        watching = workers.every(0.01, look)
        await asyncio.wait_for(looked.wait(), 10)
        await asyncio.wait_for(workers.idle(), 10)  # a loop is never "busy": nothing waits for it to end
        assert not watching.done()
        await session.disconnect(60)
        await asyncio.wait_for(asyncio.wrap_future(watching), 10)  # it ends by itself, not cancelled
        assert workers.gone and watching.exception() is None

    asyncio.run(scenario())


def test_a_request_to_the_client_keeps_nothing_busy() -> None:
    """A list scrolled to its place: with no client the answer never comes, and that must not keep the app busy
    (a contents panel's ``scroll_to`` counted as work made ``idle`` wait forever)."""

    async def scenario() -> None:
        session = await new_session(1440)
        workers = Workers(session.page)
        never, asked = asyncio.Event(), asyncio.Event()

        async def ask() -> None:
            asked.set()
            await never.wait()

        workers.request(ask)
        await asyncio.wait_for(asked.wait(), 10)  # asked, and waiting for its answer
        await asyncio.wait_for(workers.idle(), 10)

    asyncio.run(scenario())
