"""The collector's first threshold while recording (modes/gc_cadence.py): scaled on the first
recording mode's entry, restored on the last one's exit, the program's own setting kept."""
import gc
import threading

import pytest

import faketensor as ft
from faketensor.modes import gc_cadence


@pytest.fixture(autouse=True)
def _thresholds():
    found = gc.get_threshold()
    yield found
    gc.set_threshold(*found)


def test_a_recording_mode_scales_the_first_threshold_and_restores_it(_thresholds):
    with ft.FakeMode(record=True):
        assert gc.get_threshold() == (_thresholds[0] * gc_cadence.SCALE,) + _thresholds[1:]
        ft.empty(3) + 1
    assert gc.get_threshold() == _thresholds


def test_a_plain_mode_leaves_it(_thresholds):
    with ft.FakeMode():
        assert gc.get_threshold() == _thresholds
    assert gc.get_threshold() == _thresholds


def test_nested_recording_modes_scale_once_and_restore_at_the_last_exit(_thresholds):
    scaled = (_thresholds[0] * gc_cadence.SCALE,) + _thresholds[1:]
    with ft.FakeMode(record=True):
        with ft.FakeMode(record=True):
            assert gc.get_threshold() == scaled
        assert gc.get_threshold() == scaled
    assert gc.get_threshold() == _thresholds


def test_restored_when_the_block_raises(_thresholds):
    with pytest.raises(ZeroDivisionError):
        with ft.FakeMode(record=True):
            1 / 0
    assert gc.get_threshold() == _thresholds


def test_a_mode_switched_to_recording_inside_undoes_only_what_it_did(_thresholds):
    mode = ft.FakeMode()
    with mode:
        mode.record = True
    assert gc.get_threshold() == _thresholds
    mode = ft.FakeMode(record=True)
    with mode:
        mode.record = False
    assert gc.get_threshold() == _thresholds


def test_a_threshold_the_program_sets_inside_is_kept():
    with ft.FakeMode(record=True):
        gc.set_threshold(1234, 5, 6)
    assert gc.get_threshold() == (1234, 5, 6)


def test_a_disabled_collector_is_left_disabled():
    gc.set_threshold(0)
    with ft.FakeMode(record=True):
        assert gc.get_threshold()[0] == 0
    assert gc.get_threshold()[0] == 0


def test_modes_in_two_threads_restore_once_both_have_left(_thresholds):
    entered, leave = threading.Barrier(2), threading.Event()
    seen = []

    def body():
        with ft.FakeMode(record=True):
            entered.wait()
            leave.wait()
        seen.append(gc.get_threshold())

    t = threading.Thread(target=body)
    t.start()
    with ft.FakeMode(record=True):
        entered.wait()
        leave.set()
        t.join()
        assert seen == [(_thresholds[0] * gc_cadence.SCALE,) + _thresholds[1:]]
    assert gc.get_threshold() == _thresholds
