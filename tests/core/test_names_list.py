"""A risk's joined names split back without cutting a value that holds a comma."""

from service.core.names_list import split_names


def test_a_comma_inside_brackets_stays_with_its_value() -> None:
    joined = "algo.sde_window_range: [0, 5] → null, max_num_seqs: 1024 → 256"
    assert split_names(joined) == [
        "algo.sde_window_range: [0, 5] → null",
        "max_num_seqs: 1024 → 256",
    ]


def test_plain_names_split_at_each_comma_and_empty_text_is_no_name() -> None:
    assert split_names("step_start, step_end, manual_save") == [
        "step_start",
        "step_end",
        "manual_save",
    ]
    assert split_names("") == []
