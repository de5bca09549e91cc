//! One synthetic plan for each class of misreading seen on plans the
//! reader had never seen (unsafe readings first), each with a `plan
//! --format json` snapshot and the fact a person reads in it asserted.

use serde_json::Value;

use crate::common::plan_json::*;

json_snapshots! {
    "first_sight_":
    prose_order => "first-sight-prose-order",
    closing_summary => "first-sight-closing-summary",
    box_graph => "first-sight-box-graph",
    verification_open => "first-sight-verification-open",
    duplicate_tickets => "first-sight-duplicate-tickets",
    bold_steps => "first-sight-bold-steps",
    qa_section => "first-sight-qa-section",
    nested_ticks => "first-sight-nested-ticks",
    status_substage => "first-sight-status-substage",
    cursor_todos => "first-sight-cursor-todos",
    parent_subphase => "first-sight-parent-subphase",
    fenced_checks => "first-sight-fenced-checks",
    checkbox_headings => "first-sight-checkbox-headings",
    xml_tasks => "first-sight-xml-tasks",
    wrapped_parallel => "first-sight-wrapped-parallel",
    wrapped_order => "first-sight-wrapped-order",
    status_table => "first-sight-status-table",
    dependency_lines => "first-sight-dependency-lines",
    story_dependencies => "first-sight-story-dependencies",
    table_rules => "first-sight-table-rules",
    open_group => "first-sight-open-group",
    status_index => "first-sight-status-index",
    letter_codes => "first-sight-letter-codes",
    restated_phase => "first-sight-restated-phase",
    coded_tasks => "first-sight-coded-tasks",
    plain_text => "first-sight-plain-text",
    sprint_mentioned => "first-sight-sprint-mentioned",
    plain_waves => "first-sight-plain-waves",
    stated_sequence => "first-sight-stated-sequence",
    localized_marks => "first-sight-localized-marks",
    id_alone => "first-sight-id-alone",
    numbered_groups => "first-sight-numbered-groups",
    schedule_skipped => "first-sight-schedule-skipped",
    numbered_localized => "first-sight-numbered-localized",
    partly_done => "first-sight-partly-done",
    leading_status => "first-sight-leading-status",
    pr_sequence => "first-sight-pr-sequence",
    capital_ids => "first-sight-capital-ids",
    restated_checklist => "first-sight-restated-checklist",
    phase_criteria => "first-sight-phase-criteria",
    index_table => "first-sight-index-table",
    pending_lines => "first-sight-pending-lines",
    repeated_ids => "first-sight-repeated-ids",
    welle_tables => "first-sight-welle-tables",
    marked_headings => "first-sight-marked-headings",
    versions => "first-sight-versions",
    work_table => "first-sight-work-table",
    week_table => "first-sight-week-table",
    boxed_headings => "first-sight-boxed-headings",
    label_lines => "first-sight-label-lines",
    dotted_capital => "first-sight-dotted-capital",
    trailing_boxes => "first-sight-trailing-boxes",
    status_rows => "first-sight-status-rows",
    glued_phase => "first-sight-glued-phase",
    part_status_table => "first-sight-part-status-table",
    dependency_table => "first-sight-dependency-table",
    task_table => "first-sight-task-table",
    parallel_tracks => "first-sight-parallel-tracks",
    tracks_waiting => "first-sight-tracks-waiting",
    coded_headings => "first-sight-coded-headings",
    order_list => "first-sight-order-list",
    plain_fas => "first-sight-plain-fas",
    unboxed_tier => "first-sight-unboxed-tier",
    done_direction => "first-sight-done-direction",
    progress_parts => "first-sight-progress-parts",
    entry_template => "first-sight-entry-template",
    shouted_done => "first-sight-shouted-done",
    ideas_and_criteria => "first-sight-ideas-and-criteria",
    prose_step => "first-sight-prose-step",
    phase_waves => "first-sight-phase-waves",
    parallel_es => "first-sight-parallel-es",
    lettered_codes => "first-sight-lettered-codes",
    criteria_by_phase => "first-sight-criteria-by-phase",
    quoted_codes => "first-sight-quoted-codes",
    feature_board => "first-sight-feature-board",
    breakdown_table => "first-sight-breakdown-table",
    rows_across_stages => "first-sight-rows-across-stages",
    lettered_phases => "first-sight-lettered-phases",
    criteria_section => "first-sight-criteria-section",
    nested_groups => "first-sight-nested-groups",
    phase_tasks => "first-sight-phase-tasks",
    counted_steps => "first-sight-counted-steps",
    week_spans => "first-sight-week-spans",
    fenced_plan => "first-sight-fenced-plan",
    stated_deps => "first-sight-stated-deps",
    routine_steps => "first-sight-routine-steps",
    unicode_word => "first-sight-unicode-word",
    dated_done => "first-sight-dated-done",
    part_codes => "first-sight-part-codes",
    line_marks => "first-sight-line-marks",
    sprint_span => "first-sight-sprint-span",
    series_gaps => "first-sight-series-gaps",
    stage_dependency_tables => "first-sight-stage-dependency-tables",
    lane_map => "first-sight-lane-map",
    tree_over_notes => "first-sight-tree-over-notes",
    state_emoji => "first-sight-state-emoji",
    authored_frontmatter => "first-sight-authored-frontmatter",
    keycap_legend => "first-sight-keycap-legend",
    coded_dependencies => "first-sight-coded-dependencies",
    done_groups => "first-sight-done-groups",
    released_status => "first-sight-released-status",
    definition_of_done => "first-sight-definition-of-done",
    cjk_dependency_lines => "first-sight-cjk-dependency-lines",
    kiro_optional => "first-sight-kiro-optional",
    count_over_open => "first-sight-count-over-open",
    range_headings => "first-sight-range-headings",
    done_span => "first-sight-done-span",
    coded_stories => "first-sight-coded-stories",
    owner_codes => "first-sight-owner-codes",
    check_marks => "first-sight-check-marks",
    total_row => "first-sight-total-row",
    wave_sections => "first-sight-wave-sections",
    dotted_later => "first-sight-dotted-later",
    vision_list => "first-sight-vision-list",
    summary_span => "first-sight-summary-span",
    order_table_extra_row => "first-sight-order-table-extra-row",
    numeral_word => "first-sight-numeral-word",
    approach_and_order => "first-sight-approach-and-order",
    coded_status_rows => "first-sight-coded-status-rows",
    sentence_legend => "first-sight-sentence-legend",
    order_unread => "first-sight-order-unread",
    review_span_target => "first-sight-review-span-target",
    review_span_verb => "first-sight-review-span-verb",
    review_span_unit => "first-sight-review-span-unit",
    review_wave_denied => "first-sight-review-wave-denied",
    review_task_table => "first-sight-review-task-table",
    review_sum_row => "first-sight-review-sum-row",
    review_legend_headings => "first-sight-review-legend-headings",
    review_span_overview => "first-sight-review-span-overview",
    running_series => "first-sight-running-series",
    checklist_frame => "first-sight-checklist-frame",
    status_legend => "first-sight-status-legend",
    series_codes => "first-sight-series-codes",
    version_status => "first-sight-version-status",
    written_versions => "first-sight-written-versions",
    coded_table_deps => "first-sight-coded-table-deps",
    execplan_validation => "first-sight-execplan-validation",
    tracking_repeat => "first-sight-tracking-repeat",
    review_same_phases => "first-sight-review-same-phases",
    phase_agents => "first-sight-phase-agents",
    day_items => "first-sight-day-items",
    wave_steps => "first-sight-wave-steps",
    padded_cards => "first-sight-padded-cards",
    alike_phases => "first-sight-alike-phases",
    open_heading_table => "first-sight-open-heading-table",
    capitals_name => "first-sight-capitals-name",
    wrapped_status => "first-sight-wrapped-status",
    open_table_row => "first-sight-open-table-row",
    running_items => "first-sight-running-items",
    running_oneliners => "first-sight-running-oneliners",
    skipped_status => "first-sight-skipped-status",
    one_sprint => "first-sight-one-sprint",
    letter_id => "first-sight-letter-id",
    done_item => "first-sight-done-item",
    numbered_outside => "first-sight-numbered-outside",
    review_phase_items_subsection => "first-sight-review-phase-items-subsection",
    review_merged_line_is_a_step => "first-sight-review-merged-line-is-a-step",
    review_nothing_pending => "first-sight-review-nothing-pending",
    review_superseded_by => "first-sight-review-superseded-by",
    review_row_waiting_for_a_phase => "first-sight-review-row-waiting-for-a-phase",
    review_wrapped_next_up => "first-sight-review-wrapped-next-up",
    review_wrapped_prose_after_done => "first-sight-review-wrapped-prose-after-done",
    review_skipped_for_now => "first-sight-review-skipped-for-now",
    review_skip_words_in_sentences => "first-sight-review-skip-words-in-sentences",
    review_rows_put_off => "first-sight-review-rows-put-off",
    review_phase_items_out_of_scope => "first-sight-review-phase-items-out-of-scope",
    review_phase_items_exit_criteria => "first-sight-review-phase-items-exit-criteria",
    review_legend_work => "first-sight-review-legend-work",
    review_hardware_series_codes => "first-sight-review-hardware-series-codes",
    review_doc_control_versions => "first-sight-review-doc-control-versions",
    review_twin_units_repeats => "first-sight-review-twin-units-repeats",
    review_phase_agents_done_lost => "first-sight-review-phase-agents-done-lost",
    review_running_series_own_tasks => "first-sight-review-running-series-own-tasks",
    review_padded_doc_sections => "first-sight-review-padded-doc-sections",
    review_phase_agents_parallelizable_no => "first-sight-review-phase-agents-parallelizable-no",
    review_numbered_parents_other_series => "first-sight-review-numbered-parents-other-series",
    review_step_items_recipe => "first-sight-review-step-items-recipe",
    review_alike_numbered_sections_drop_work => "first-sight-review-alike-numbered-sections-drop-work",
    table_key_mark => "first-sight-table-key-mark",
    settled_aside => "first-sight-settled-aside",
    outline_numbered_phases => "first-sight-outline-numbered-phases",
    numbered_instructions => "first-sight-numbered-instructions",
    legend_boxes => "first-sight-legend-boxes",
    label_lines_over_checklists => "first-sight-label-lines-over-checklists",
    cjk_numbered_sections => "first-sight-cjk-numbered-sections",
    worded_siblings => "first-sight-worded-siblings",
    bracketed_weeks => "first-sight-bracketed-weeks",
    field_name_deps => "first-sight-field-name-deps",
    preamble_agents => "first-sight-preamble-agents",
    steps_list => "first-sight-steps-list",
    arrow_chain => "first-sight-arrow-chain",
    table_in_order => "first-sight-table-in-order",
    symbol_boxes => "first-sight-symbol-boxes",
    field_lines_among_marks => "first-sight-field-lines-among-marks",
    cjk_acceptance => "first-sight-cjk-acceptance",
    localized_name_column => "first-sight-localized-name-column",
    qualified_mark => "first-sight-qualified-mark",
    title_span => "first-sight-title-span",
    localized_status_table => "first-sight-localized-status-table",
    order_table_other_numbers => "first-sight-order-table-other-numbers",
    grouped_work_table => "first-sight-grouped-work-table",
    risk_table => "first-sight-risk-table",
    icon_and_words => "first-sight-icon-and-words",
    done_container => "first-sight-done-container",
    board_columns => "first-sight-board-columns",
    fullwidth_fields => "first-sight-fullwidth-fields",
    subphase_series => "first-sight-subphase-series",
    chain_order => "first-sight-chain-order",
    blockers_over_tasks => "first-sight-blockers-over-tasks",
    post_launch => "first-sight-post-launch",
    dash_done => "first-sight-dash-done",
    priority_tiers => "first-sight-priority-tiers",
    inserted_section => "first-sight-inserted-section",
    review5_state_word => "first-sight-review5-state-word",
    review5_acceptance_numbers => "first-sight-review5-acceptance-numbers",
    review5_known_issues => "first-sight-review5-known-issues",
    review6_known_issues => "first-sight-review6-known-issues",
    review6_dated_digits => "first-sight-review6-dated-digits",
    split_leftovers => "first-sight-split-leftovers",
    russian_depends => "first-sight-russian-depends",
    left_out => "first-sight-left-out",
    pair_criteria => "first-sight-pair-criteria",
    category_tables => "first-sight-category-tables",
    review7_out_of_scope_part => "first-sight-review7-out-of-scope-part",
    review7_dotted_pair => "first-sight-review7-dotted-pair",
    review7_known_issue => "first-sight-review7-known-issue",
    review7_carry_over => "first-sight-review7-carry-over",
    review8_deferred_table => "first-sight-review8-deferred-table",
    review8_bare_label => "first-sight-review8-bare-label",
    review8_log_order => "first-sight-review8-log-order",
    wave_index => "first-sight-wave-index",
    release_bug_groups => "first-sight-release-bug-groups",
    index_parts => "first-sight-index-parts",
    phase_opening_agents => "first-sight-phase-opening-agents",
    closing_milestones => "first-sight-closing-milestones",
    gantt_marks => "first-sight-gantt-marks",
    phase_list_offers => "first-sight-phase-list-offers",
    titled_subphases => "first-sight-titled-subphases",
    agents_name_agents => "first-sight-agents-name-agents",
    hyphen_series => "first-sight-hyphen-series",
    restated_index => "first-sight-restated-index",
    lettered_stages => "first-sight-lettered-stages",
    review10_conditional_offer => "first-sight-review10-conditional-offer",
    review10_agent_notifies => "first-sight-review10-agent-notifies",
    review10_risk_series => "first-sight-review10-risk-series",
    review10_ready_to_start => "first-sight-review10-ready-to-start",
    review10_overview_order => "first-sight-review10-overview-order",
    review10_kept_for_reference => "first-sight-review10-kept-for-reference",
    review10_optional_validation => "first-sight-review10-optional-validation",
    agents_named_the_other_way => "first-sight-agents-named-the-other-way",
    dependency_asides => "first-sight-dependency-asides",
    parts_marked_one_by_one => "first-sight-parts-marked-one-by-one",
    restating_details => "first-sight-restating-details",
    range_then_parallel => "first-sight-range-then-parallel",
    lettered_tasks_cjk => "first-sight-lettered-tasks-cjk",
    drawn_phase_tree => "first-sight-drawn-phase-tree",
    chapters_of_one_series => "first-sight-chapters-of-one-series",
    emoji_letter_heading => "first-sight-emoji-letter-heading",
    phase_list_requires_labels => "first-sight-phase-list-requires-labels",
    review11_groups_after_that => "first-sight-review11-groups-after-that",
    review11_restating_rollback_section => "first-sight-review11-restating-rollback-section",
    review11_asides_gap_steps_run_early => "first-sight-review11-asides-gap-steps-run-early",
    review11_tree_then_overridden => "first-sight-review11-tree-then-overridden",
    review11_requires_parallel_offer_declined => "first-sight-review11-requires-parallel-offer-declined",
    review11_chapters_frontend_backend_continued => "first-sight-review11-chapters-frontend-backend-continued",
    review11_parts_split_open_questions => "first-sight-review11-parts-split-open-questions",
    boxed_series_over_schedule => "first-sight-boxed-series-over-schedule",
    lettered_step_codes => "first-sight-lettered-step-codes",
    review12_series_week4_real_phase_summary => "first-sight-review12-series-week4-real-phase-summary",
    review12_tree_reverse_blocks => "first-sight-review12-tree-reverse-blocks",
    review12_asides_cross_sections => "first-sight-review12-asides-cross-sections",
    review12_asides_dep_parenthetical_note => "first-sight-review12-asides-dep-parenthetical-note",
    lettered_waves => "first-sight-lettered-waves",
    criteria_after_groups => "first-sight-criteria-after-groups",
    chinese_dependency_column => "first-sight-chinese-dependency-column",
    plan_status_line => "first-sight-plan-status-line",
    items_marked_one_by_one => "first-sight-items-marked-one-by-one",
    series_in_list_items => "first-sight-series-in-list-items",
    state_verified => "first-sight-state-verified",
    open_entry_beside_ticked_parts => "first-sight-open-entry-beside-ticked-parts",
    decimal_phase_codes => "first-sight-decimal-phase-codes",
    task_blocked_by_lines => "first-sight-task-blocked-by-lines",
    german_status_span => "first-sight-german-status-span",
    ongoing_section => "first-sight-ongoing-section",
    review13_status_line_open_steps => "first-sight-review13-status-line-open-steps",
    review13_two_dependency_lines => "first-sight-review13-two-dependency-lines",
    review13_qualified_done_words => "first-sight-review13-qualified-done-words",
    remaining_entry_beside_ticked_parts => "first-sight-remaining-entry-beside-ticked-parts",
    interleaved_waves => "first-sight-interleaved-waves",
    quality_gates => "first-sight-quality-gates",
    table_row_parallel => "first-sight-table-row-parallel",
    status_heading => "first-sight-status-heading",
    code_span_names => "first-sight-code-span-names",
    review14_numbered_notes => "first-sight-review14-numbered-notes",
    review14_gates_with_work => "first-sight-review14-gates-with-work",
    review14_status_heading_open => "first-sight-review14-status-heading-open",
    margin_labels => "first-sight-margin-labels",
    wave_part_tables => "first-sight-wave-part-tables",
    check_lines => "first-sight-check-lines",
    field_table => "first-sight-field-table",
    letter_ticks => "first-sight-letter-ticks",
    review15_rollback_table => "first-sight-review15-rollback-table",
    review15_check_results => "first-sight-review15-check-results",
    review15_field_table_other => "first-sight-review15-field-table-other",
    review15_letter_tags => "first-sight-review15-letter-tags",
    review15_group_node_picture => "first-sight-review15-group-node-picture",
    state_shortcodes => "first-sight-state-shortcodes",
    status_table_leaves => "first-sight-status-table-leaves",
    table_graph => "first-sight-table-graph",
    review16_done_table_plus_prose => "first-sight-review16-done-table-plus-prose",
    review16_tasks_restart_per_phase => "first-sight-review16-tasks-restart-per-phase",
    review16_sign_off_phase => "first-sight-review16-sign-off-phase",
    sprint_table_graph => "first-sight-sprint-table-graph",
    review16_table_graph_cycle => "first-sight-review16-table-graph-cycle",
    review17_done_table_under_remaining => "first-sight-review17-done-table-under-remaining",
    review17_graph_of_alternatives => "first-sight-review17-graph-of-alternatives",
    review17_graph_of_milestones => "first-sight-review17-graph-of-milestones",
    review17_notes_say_todo => "first-sight-review17-notes-say-todo",
    review17_drawn_box_lines => "first-sight-review17-drawn-box-lines",
    review17_rollback_graph => "first-sight-review17-rollback-graph",
    architecture_graph => "first-sight-architecture-graph",
    status_table_other_step => "first-sight-status-table-other-step",
    joined_about_name => "first-sight-joined-about-name",
    emoji_step_summary => "first-sight-emoji-step-summary",
    review18_decided_build_order => "first-sight-review18-decided-build-order",
    review18_emoji_success_criteria => "first-sight-review18-emoji-success-criteria",
    review18_old_pipeline_graph => "first-sight-review18-old-pipeline-graph",
    review18_phase_rows_name_waves => "first-sight-review18-phase-rows-name-waves",
    optional_future_line => "first-sight-optional-future-line",
    series_into_backlog => "first-sight-series-into-backlog",
}

fn names(v: &Value, unit: usize) -> Vec<String> {
    sprint_names(v, unit)
}

fn done(v: &Value, unit: usize) -> Vec<bool> {
    sprints_done(v, unit)
}

#[test]
fn order_in_prose_and_summary_tables_never_adds_parallelism() {
    let (status, v, _) = json("first-sight-prose-order");
    assert_eq!(status, 0);
    assert_eq!(deps(&v, 1), ["Storage layer"]);
    assert_eq!(deps(&v, 2), ["Service layer"]);
    let (_, v, _) = json("first-sight-closing-summary");
    assert_eq!(deps(&v, 1), ["Foundation"]);
    let (_, v, _) = json("first-sight-box-graph");
    assert_eq!(units(&v), ["ingest", "transform", "publish"]);
    assert_eq!(deps(&v, 1), ["ingest"]);
    assert_eq!(deps(&v, 2), ["transform"]);
    // Wrapped over two lines, a sentence still says what it says.
    let (_, v, _) = json("first-sight-wrapped-order");
    assert_eq!(deps(&v, 2), ["beta"]);
    let (_, v, _) = json("first-sight-wrapped-parallel");
    assert_eq!(v["detection"]["dependencies"], "parallel");
}

#[test]
fn a_numbered_verification_step_with_open_lines_is_open_work() {
    let (_, v, _) = json("first-sight-verification-open");
    assert_eq!(
        names(&v, 0),
        [
            "Extract the config loader",
            "Replace the YAML parser",
            "Verification"
        ]
    );
    assert_eq!(done(&v, 0), [true, true, false]);
    assert_eq!(v["tally"]["task_lines"], 7);
    assert_eq!(v["tally"]["in_sprints"], 7);
}

#[test]
fn the_same_work_listed_twice_is_a_warning() {
    let (_, v, _) = json("first-sight-duplicate-tickets");
    assert!(codes(&v, "warnings").contains(&"plan::same_work_twice".to_string()));
    let dir = crate::common::plans_dir().join("first-sight-duplicate-tickets");
    let out = crate::common::run(&dir, &["plan", "--strict"]);
    assert_ne!(out.status, 0, "--strict refuses the same work twice");
}

#[test]
fn a_later_heading_that_mentions_a_sprint_is_not_that_work_again() {
    // `### Semaine prochaine (Sem 4) - Sprint 3` under `## Prochaines
    // actions` names Sprint 3 after words of its own: a mention, not a
    // second Sprint 3 in a unit of its own.
    let (status, v, _) = json("first-sight-sprint-mentioned");
    assert_eq!(status, 0, "{v}");
    assert_eq!(v["units"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(done(&v, 0), [true, false, false]);
}

#[test]
fn bold_steps_are_the_work_and_an_acceptance_list_is_not() {
    let (_, v, _) = json("first-sight-bold-steps");
    assert_eq!(v["units"][0]["sprints"].as_array().map(Vec::len), Some(4));
    assert_eq!(done(&v, 0), [true, true, false, false]);
    let (_, v, _) = json("first-sight-qa-section");
    assert_eq!(names(&v, 0), ["Index", "Query API"]);
}

#[test]
fn finished_work_is_read_where_it_is_marked() {
    let (_, v, _) = json("first-sight-nested-ticks");
    assert_eq!(done(&v, 0), [true, false, true]);
    let (_, v, _) = json("first-sight-status-substage");
    assert_eq!(sprint_ids(&v, 0), ["1.1", "1.2", "1.3"]);
    assert_eq!(done(&v, 0), [true, true, false]);
    let (_, v, _) = json("first-sight-cursor-todos");
    assert_eq!(done(&v, 0), [true, true, false]);
    // A status table naming the sprints by number is their index.
    let (_, v, _) = json("first-sight-status-index");
    assert_eq!(done(&v, 0), [true, true, false]);
    assert!(codes(&v, "guesses").contains(&"reading::done_elsewhere".to_string()));
}

#[test]
fn a_phase_keeps_its_own_tasks_beside_its_sub_phase() {
    let (_, v, _) = json("first-sight-parent-subphase");
    assert_eq!(sprint_ids(&v, 0), ["1", "1a", "2"]);
    assert_eq!(v["tally"]["outside"].as_array().map(Vec::len), Some(0));
}

#[test]
fn a_fenced_list_of_checks_is_never_run() {
    let (_, v, _) = json("first-sight-fenced-checks");
    let exit = v["units"][0]["sprints"][0]["exit"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(exit.len(), 2);
    assert!(exit.iter().all(|c| c["kind"] == "checklist"));
}

#[test]
fn readable_plans_are_read_and_the_guess_is_said() {
    let (status, v, _) = json("first-sight-checkbox-headings");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0), ["1.1", "1.2", "2.1", "2.2"]);
    assert_eq!(done(&v, 0), [true, true, false, false]);
    assert!(codes(&v, "guesses").contains(&"reading::numbered_headings".to_string()));
    // Codes of several letters (`B1`, `M1`): `M1` is no milestone there.
    let (status, v, _) = json("first-sight-letter-codes");
    assert_eq!(status, 0);
    assert_eq!(
        names(&v, 0),
        [
            "B1: Hardcoded bridge IPs break on restart",
            "B2: Ledger is permanently stale",
            "I1: Intent gate declared but missing",
            "M1: hub.service not committed",
            "M2: No .env.example template"
        ]
    );
    assert_eq!(done(&v, 0), [true, false, false, true, false]);
    // A roadmap whose only work is the headings under `## Not Started`.
    let (status, v, _) = json("first-sight-open-group");
    assert_eq!(status, 0);
    assert_eq!(
        names(&v, 0),
        ["Calibration", "Streaming charts", "Handbook"]
    );
    assert!(codes(&v, "guesses").contains(&"reading::numbered_headings".to_string()));
    let (status, v, _) = json("first-sight-xml-tasks");
    assert_eq!(status, 0);
    assert_eq!(names(&v, 0), ["Create the auth module", "Sessions"]);
}

#[test]
fn a_table_of_tasks_and_sub_tasks_is_one_sprint_a_task() {
    let (_, v, _) = json("first-sight-status-table");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    assert_eq!(done(&v, 0), [true, false, false]);
}

#[test]
fn each_steps_dependency_line_is_its_order() {
    let (status, v, _) = json("first-sight-dependency-lines");
    assert_eq!(status, 0);
    assert_eq!(v["units"].as_array().map(Vec::len), Some(4));
    assert!(deps(&v, 0).is_empty());
    assert!(deps(&v, 1).is_empty());
    assert_eq!(deps(&v, 2).len(), 2);
    assert_eq!(deps(&v, 3).len(), 1);
    assert!(codes(&v, "guesses").contains(&"reading::order_stated".to_string()));
}

#[test]
fn order_sentences_are_obeyed_over_any_reading() {
    // The phase list lets every story start after Phase 2; the line under
    // it orders US2 after US1.
    let (_, v, _) = json("first-sight-story-dependencies");
    assert_eq!(
        units(&v),
        ["Phase 1", "Phase 2", "Phase 3", "Phase 4", "Phase 5"]
    );
    assert_eq!(deps(&v, 3), ["Phase 2", "Phase 3"]);
    assert_eq!(deps(&v, 4), ["Phase 2"]);
    // A unit table's rows start at once, unless a section's rules say
    // otherwise, however the rule is wrapped.
    let (_, v, _) = json("first-sight-table-rules");
    assert_eq!(deps(&v, 1), ["core"]);
    assert_eq!(deps(&v, 2), ["api"]);
}

/// Sub-headings that restate their phase's word and number (`### Phase 0
/// deliverables` beside the phase's `### Step 01.`) are no second phase 0:
/// the steps are the sprints, the phases their units (was refused).
#[test]
fn headings_that_restate_their_phase_leave_the_steps_as_sprints() {
    let (status, v, _) = json("first-sight-restated-phase");
    assert_eq!(status, 0);
    assert_eq!(units(&v).len(), 2, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2"]);
    assert_eq!(sprint_ids(&v, 1), ["3", "4"]);
}

/// `- [x] T1 …` items with `T1.1` children under `## Tasks` are a task
/// list: one sprint per top-level item, its tick its done mark, an open
/// child keeping it open (was refused).
#[test]
fn coded_checkbox_items_are_a_task_list() {
    let (status, v, _) = json("first-sight-coded-tasks");
    assert_eq!(status, 0);
    assert_eq!(sprint_ids(&v, 0).len(), 3, "{v}");
    assert_eq!(done(&v, 0), [true, false, false]);
}

/// A roadmap pasted as plain text, with no Markdown heading: its `Phase N`
/// lines are its sprints, in order (was refused).
#[test]
fn a_plain_text_roadmap_reads_its_phase_lines() {
    let (status, v, _) = json("first-sight-plain-text");
    assert_eq!(status, 0);
    assert_eq!(names(&v, 0), ["Agent autonomy", "Retrieval"], "{v}");
}

#[test]
fn plain_wave_lines_under_a_title_are_read_and_a_legend_is_no_work() {
    // No heading but the title: `Wave N — …` lines are the steps, and the
    // `- [ ] Not started` / `- [x] Done` legend is not work outside them.
    let (status, v, _) = json("first-sight-plain-waves");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0).len(), 3, "{v}");
    assert_eq!(done(&v, 0), [true, false, false]);
    assert!(!codes(&v, "warnings").contains(&"plan::work_outside".to_string()));
}

/// spec-kit's `Phase Dependencies` item for the user stories, its sub-item
/// saying they go "sequentially (P1 → P2 → P3)": each story waits for the
/// one before (they all started at once after Foundational).
#[test]
fn stories_said_to_go_in_sequence_wait_for_each_other() {
    let (status, v, _) = json("first-sight-stated-sequence");
    assert_eq!(status, 0, "{v}");
    assert_eq!(deps(&v, 3), ["Phase 3"], "{v}");
    assert_eq!(deps(&v, 4), ["Phase 4"], "{v}");
}

/// Done marks in the plan's language: a task table's `状態` column all ✅,
/// a `(완료)` aside, `（完了: 2026-02-14）`, `（第 1-5 天，已完成）`; an open
/// row, `（継続中）` and
/// `(完成度 50%)` are not.
#[test]
fn status_tables_and_asides_are_read_in_the_plans_language() {
    let (_, v, _) = json("first-sight-localized-marks");
    assert_eq!(done(&v, 0), [true, false, true, false, true, true], "{v}");
    assert_eq!(names(&v, 0)[2], "P2: 연동");
    assert_eq!(names(&v, 0)[4], "P4: エクスポート");
    assert_eq!(names(&v, 0)[5], "P5: 安全骨架");
}

/// `### Этап 1 (реализован)` over a table of pages, before `### Этап 1:
/// Авторизация`: about that stage, not a unit of its own.
#[test]
fn a_heading_of_an_id_alone_is_about_the_named_sprint() {
    let (_, v, _) = json("first-sight-id-alone");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(
        names(&v, 0),
        ["Авторизация", "Маршрутные листы", "Операции"]
    );
    assert_eq!(done(&v, 0), [true, false, false]);
}

/// `1) Fundaciones` then its checklist, `2) …` then its own: the
/// numbered lines title their checklists, one sprint each.
#[test]
fn numbered_lines_title_the_checklists_after_them() {
    let (_, v, _) = json("first-sight-numbered-groups");
    assert_eq!(
        names(&v, 0),
        [
            "Fundaciones",
            "Autenticación y perfiles",
            "Pulido y despliegue"
        ]
    );
    assert_eq!(done(&v, 0), [true, true, false]);
}

/// `### Sprint N` sections that only list `Phase N` headings schedule the
/// phases; the phases are the sprints, and a phase struck through as
/// SKIPPED is dropped work, never dispatched.
#[test]
fn a_schedule_of_phases_and_a_skipped_phase_are_no_work() {
    let (_, v, _) = json("first-sight-schedule-skipped");
    assert_eq!(
        names(&v, 0),
        ["Feature validation", "Backtest framework", "Deployment"],
        "{v}"
    );
    assert!(!codes(&v, "warnings").contains(&"plan::work_outside".to_string()));
}

/// `## 2. Fase 0 — …` sections (a section number before a word of the
/// plan's language) are the sprints with their task lines; a closing
/// `FASES COMPLETADAS` list of bold items only restates them (it was read
/// as the steps, every task line left out).
#[test]
fn numbered_sections_in_the_plans_language_beat_a_closing_summary() {
    let (_, v, _) = json("first-sight-numbered-localized");
    assert_eq!(sprint_ids(&v, 0), ["0", "1"], "{v}");
    assert_eq!(done(&v, 0), [true, false]);
    assert_eq!(v["tally"]["in_sprints"], 4, "{v}");
}

/// `✅ **一部完了**` (done in part) and `— PARTIALLY COMPLETE` on a heading:
/// open work, not a done mark (both read done, their open lines hidden).
#[test]
fn a_mark_that_says_done_in_part_is_not_done() {
    let (_, v, _) = json("first-sight-partly-done");
    assert_eq!(done(&v, 0), [false, true, false], "{v}");
    assert_eq!(names(&v, 0)[2], "Search");
}

/// `M0: COMPLETE 2025-10-02 - Hello`, `M1: DONE — …`, `M2: **Done** …`:
/// the status before the name is the mark; `Complete the …` is a name.
#[test]
fn a_status_before_the_name_is_its_mark() {
    let (_, v, _) = json("first-sight-leading-status");
    assert_eq!(done(&v, 0), [true, true, true, false, false], "{v}");
    assert_eq!(
        names(&v, 0)[..3],
        ["Hello world", "Intent queueing", "Camera and map"]
    );
    assert_eq!(names(&v, 0)[3], "Complete the resource ledger");
}

/// `### PR N: …` headings are the plan's work items (the plan was
/// refused); `Phase UX1` is a phase like `Phase B1` (it was dropped).
#[test]
fn pull_requests_and_capital_ids_are_sprints() {
    let (status, v, _) = json("first-sight-pr-sequence");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        ["Staging refactor", "CMake infrastructure", "Target rename"]
    );
    let (_, v, _) = json("first-sight-capital-ids");
    assert_eq!(names(&v, 0).len(), 4, "{v}");
    assert_eq!(v["tally"]["in_sprints"], 4, "{v}");
}

/// A checklist at the end cut by headings that name the phases (`###
/// Phase 1 - Auth`): a phase whose boxes are all ticked is done, with the
/// steps that are its sprints; one with an open box is not.
#[test]
fn a_checklist_by_phase_marks_the_phases_it_names() {
    let (_, v, _) = json("first-sight-restated-checklist");
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
    assert!(codes(&v, "guesses").contains(&"reading::done_elsewhere".to_string()));
}

/// A phase with acceptance criteria of its own beside its `### 1.1`,
/// `### 1.2` parts is checked as a whole: the phase is the sprint, the
/// parts its tasks, and the criteria its exit criteria (the parts were the
/// sprints, and the criteria checked nothing).
#[test]
fn a_phase_with_its_own_criteria_is_one_sprint() {
    let (_, v, _) = json("first-sight-phase-criteria");
    assert_eq!(names(&v, 0), ["Project setup", "Core backend"], "{v}");
    assert_eq!(v["tally"]["criteria"], 2, "{v}");
}

/// A summary table naming every phase with a Dependencies column orders
/// the phases its sections detail: 1 and 2 after 0, 3 after both (they
/// ran as one sequence).
#[test]
fn a_summary_tables_dependencies_order_the_phases() {
    let (_, v, _) = json("first-sight-index-table");
    assert_eq!(units(&v).len(), 4, "{v}");
    assert_eq!(deps(&v, 1), ["Phase 0"]);
    assert_eq!(deps(&v, 2), ["Phase 0"]);
    assert_eq!(deps(&v, 3), ["Phase 1", "Phase 2"]);
}

/// `FÁZE N` (Czech) headings are the phases (three were dropped, the
/// fourth read alone), `— DOKONČENO` is a mark in its language, and a
/// `- ⏳ …` line beside ticked ones is open work: a marked phase holding
/// one is not done.
#[test]
fn pending_lines_keep_a_marked_phase_open() {
    let (_, v, _) = json("first-sight-pending-lines");
    assert_eq!(
        names(&v, 0),
        ["Migrace obsahu", "Design", "Databáze", "記録"],
        "{v}"
    );
    assert_eq!(done(&v, 0), [true, false, false, false]);
    assert_eq!(v["tally"]["in_sprints"], 8, "{v}");
}

/// Two `Priority 3` groups with other names are two sprints (the plan was
/// refused as defining sprint 3 twice); the later is read as `3b`, and the
/// reading says so.
#[test]
fn an_id_repeated_under_another_name_is_a_second_sprint() {
    let (status, v, _) = json("first-sight-repeated-ids");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "3b"]);
    assert!(codes(&v, "guesses").contains(&"reading::repeated_id".to_string()));
}

/// `## Welle N` sections of work-package tables: each wave is a stage of
/// the plan, run in order (the plan was refused as having no sprints).
#[test]
fn waves_in_the_plans_language_are_its_stages() {
    let (status, v, _) = json("first-sight-welle-tables");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        ["Stabilität (keine neuen Features)", "Event-Integrität"]
    );
}

/// A wishlist of unnumbered feature headings, some struck and marked
/// `(Done)`: the marked level holds the work items, each one sprint,
/// done by its mark (the plan was refused), and the reading says so.
#[test]
fn headings_marked_done_one_by_one_are_the_sprints() {
    let (status, v, _) = json("first-sight-marked-headings");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Browse contents",
            "Eject button",
            "Two-way sync",
            "Playlists"
        ]
    );
    assert_eq!(done(&v, 0), [true, true, false, false]);
    assert!(codes(&v, "guesses").contains(&"reading::numbered_headings".to_string()));
}

/// `## Version 0.2` headings over their feature lists are the roadmap's
/// milestones, in order (the plan was refused); a version heading that
/// only names a release over numbered sections is not one (I12).
#[test]
fn versions_over_their_features_are_milestones() {
    let (status, v, _) = json("first-sight-versions");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["0.2", "0.3", "0.10"], "{v}");
}

/// A plan that is one table of work, rows grouped by a step column written
/// in the plan's language (`Giai đoạn`), a blank cell continuing the row
/// above: each group is a step, done only where every row's status says so
/// (the plan was refused), and the reading says it is a guess.
#[test]
fn a_table_of_work_is_read_before_a_refusal() {
    let (status, v, _) = json("first-sight-work-table");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0), ["Giai đoạn 0", "Giai đoạn 1", "Giai đoạn 2"]);
    assert_eq!(done(&v, 0), [true, false, false]);
    assert!(codes(&v, "guesses").contains(&"reading::table_rows".to_string()));
}

/// A week-by-week table where one sprint spans two weeks: the two rows of
/// the same work are one step; dates are not names (the plan was refused).
#[test]
fn the_same_work_on_rows_in_a_row_is_one_step() {
    let (status, v, _) = json("first-sight-week-table");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Projektstart und Projektplanung",
            "Sprint 1",
            "Dokumentation der Zwischenergebnisse",
            "Sprint 2"
        ]
    );
}

/// `### [x] Name` headings under `Completed` and `Pending` sections of a
/// tracker titled `Phase 1 …`: each boxed heading is a step, done by its
/// box (the whole tracker was one open sprint: finished work redone).
#[test]
fn headings_ticked_one_by_one_are_steps() {
    let (status, v, _) = json("first-sight-boxed-headings");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Bootstrap the service",
            "Overlay editing",
            "Edit history API",
            "Benchmark run and report"
        ]
    );
    assert_eq!(done(&v, 0), [true, true, false, false]);
}

/// `Hito 1:` label lines (not headings) over lists whose boxes are written
/// as code (`` `[X]` ``, `` `[.]` `` under way): the labels are the steps,
/// the boxes their marks (the plan was refused).
#[test]
fn step_labels_over_quoted_boxes_are_read_before_a_refusal() {
    let (status, v, _) = json("first-sight-label-lines");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0), ["Hito 1", "Hito 2"]);
    assert_eq!(done(&v, 0), [false, true]);
    assert!(!codes(&v, "guesses").is_empty(), "{v}");
}

/// `AŞAMA 3: METİN …`: a dotted capital I later in the heading (longer
/// when lowercased) hid the sprint word, and the stage was dropped.
#[test]
fn a_dotted_capital_does_not_hide_a_stage() {
    let (status, v, _) = json("first-sight-dotted-capital");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
}

/// `### 10. Sharing [ ]` headings, some with subtask boxes and some
/// without: each boxed heading is a step, done by its box (those without
/// subtasks were dropped: open work never dispatched).
#[test]
fn headings_ending_in_a_box_are_steps_with_or_without_subtasks() {
    let (status, v, _) = json("first-sight-trailing-boxes");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Feed Implementation",
            "Cross-Platform Sharing",
            "Project Setup",
            "Authentication"
        ]
    );
    // Listed by state, the steps keep the numbers the plan gave them.
    assert_eq!(sprint_ids(&v, 0), ["5", "10", "1", "2"], "{v}");
    assert_eq!(done(&v, 0), [false, false, true, true]);
}

/// Phases whose work is a table of titled items with a status each: the
/// titles are the phase's tasks (the phases had none, and an agent was
/// sent with nothing to do).
#[test]
fn titled_rows_with_a_status_are_a_phases_tasks() {
    let (status, v, _) = json("first-sight-status-rows");
    assert_eq!(status, 0, "{v}");
    let tasks = |k: usize| v["units"][0]["sprints"][k]["tasks"].clone();
    assert_eq!(
        tasks(0),
        serde_json::json!(["Master plan", "Architecture diagrams"])
    );
    assert_eq!(
        tasks(1),
        serde_json::json!(["Repository creation", "CI templates"])
    );
}

/// `## Phase0：…` (the number glued to the word) over `### 0-1. …` steps:
/// the steps are the sprints, a bare `### 2-1. …` is a task of its phase,
/// and a restatement under `## 完了したタスク` (finished tasks),
/// `### Phase0-1：…` after phases 0 and 1 are headed, is no step of its own
/// (phase 2 was dropped: open work never dispatched).
#[test]
fn glued_phase_numbers_and_hyphened_steps_are_read() {
    let (status, v, _) = json("first-sight-glued-phase");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["0.1", "0.2", "1.1", "1.2", "2"], "{v}");
    assert_eq!(done(&v, 0), [true, true, true, false, false]);
    assert_eq!(
        v["units"][0]["sprints"][4]["tasks"],
        serde_json::json!(["2-1. 本番リリース", "2-2. モニタリング・分析"])
    );
}

/// `| Sprint | Name | Status |` tables inside `### M1`, `### M2`: the
/// milestones' own parts; their rows `S3` do not mark milestone 3 done
/// (it was: open work hidden).
#[test]
fn a_milestones_sprint_table_marks_only_its_milestone() {
    let (status, v, _) = json("first-sight-part-status-table");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
}

/// A plan that is one table of tracks with a `Depends On` column: each
/// track is a unit waiting for the tracks it names, done by its status
/// (the plan was refused).
#[test]
fn a_table_of_tracks_with_dependencies_is_a_graph() {
    let (status, v, _) = json("first-sight-dependency-table");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().expect("units");
    assert_eq!(units.len(), 5, "{v}");
    assert_eq!(units[4]["name"], "05_release");
    assert_eq!(
        units[4]["deps"],
        serde_json::json!(["03_agent_tools", "04_metadata"])
    );
    assert_eq!(units[2]["deps"], serde_json::json!(["02_context_layer"]));
    assert_eq!(v["detection"]["dependencies"], "graph");
    let done: Vec<bool> = units
        .iter()
        .map(|u| !u["sprints"][0]["done"].is_null())
        .collect();
    assert_eq!(done, [true, true, false, false, false]);
}

/// A plan that is one `| Task | … | Status |` table: each row a step,
/// done by its status (the plan was refused).
#[test]
fn a_task_table_is_read_row_by_row() {
    let (status, v, _) = json("first-sight-task-table");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0), ["Odoo guide", "Prozessmodell", "Testkonzept"]);
    assert_eq!(done(&v, 0), [true, true, false]);
}

/// Tracks the plan says are independent and run in parallel: each is a
/// unit, its checklist or its task list its steps, a track with no list
/// one step; the notes under `Focus:` and `Deliverables:` are not work.
/// Before, only the one track holding boxes was read and the others
/// were dropped without a word.
#[test]
fn tracks_said_to_run_in_parallel_are_units_of_their_items() {
    let (status, v, _) = json("first-sight-parallel-tracks");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().expect("units");
    let unit_names: Vec<&str> = units.iter().filter_map(|u| u["name"].as_str()).collect();
    assert_eq!(
        unit_names,
        [
            "Track A — Storage",
            "Track B — HTTP API",
            "Track C — Documentation"
        ]
    );
    assert_eq!(v["detection"]["dependencies"], "parallel", "{v}");
    assert!(units.iter().all(|u| u["deps"] == serde_json::json!([])));
    assert_eq!(
        names(&v, 0),
        [
            "Write the schema migration",
            "Add the account repository",
            "Index the journal by date"
        ]
    );
    assert_eq!(done(&v, 0), [true, false, false]);
    assert_eq!(names(&v, 1).len(), 2, "{v}");
    assert_eq!(names(&v, 1)[0], "Define the OpenAPI document");
    assert_eq!(names(&v, 2), ["Track C — Documentation"]);
    assert_eq!(v["units"][2]["sprints"][0]["id"], "1", "{v}");
    // The same said in one sentence over checklists alone.
    let (_, v, _) = json("first-sight-parallel-said");
    assert_eq!(v["units"].as_array().map(Vec::len), Some(3), "{v}");
    assert_eq!(v["detection"]["dependencies"], "parallel", "{v}");
}

/// The same tracks, one of which says it waits for another: the plan's
/// one sequence stands, and the reading says it saw parallel words.
#[test]
fn tracks_that_wait_for_another_stay_one_sequence() {
    let (status, v, _) = json("first-sight-tracks-waiting");
    assert_eq!(status, 0, "{v}");
    assert_eq!(v["units"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["detection"]["dependencies"], "sequential", "{v}");
}

/// Five `### FIX-001: …` headings across the plan's sections, one of
/// which is `## WEEK 1-2 ACTIONS` (restated in a priority matrix): the
/// coded series is the work. Before, the week heading was the only step
/// and the fixes outside it were dropped.
#[test]
fn a_coded_series_of_headings_outweighs_one_step_word_section() {
    let (status, v, _) = json("first-sight-coded-headings");
    assert_eq!(status, 0, "{v}");
    let all: Vec<String> = v["units"]
        .as_array()
        .expect("units")
        .iter()
        .flat_map(|u| u["sprints"].as_array().cloned().unwrap_or_default())
        .filter_map(|s| s["name"].as_str().map(str::to_string))
        .collect();
    assert_eq!(all.len(), 5, "{v}");
    assert_eq!(all[0], "FIX-001: Rotate the production token");
    assert_eq!(all[4], "FIX-005: Write the runbook");
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
    assert_ne!(v["detection"]["dependencies"], "parallel", "{v}");
}

/// A plan that is an index: `## Execution order` over a plain numbered
/// list of phase files, then rules. The list is the steps, and the
/// reading says it guessed; before, the sections were read as steps.
#[test]
fn a_plain_numbered_list_under_an_order_heading_is_the_last_reading() {
    let (status, v, _) = json("first-sight-order-list");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "phase-01-inventory.md",
            "phase-02-billing.md",
            "phase-03-reports.md",
            "phase-04-audit.md"
        ]
    );
    assert!(
        codes(&v, "guesses").contains(&"reading::bold_items".to_string()),
        "{v}"
    );
}

/// A plan written without headings, its steps lines in Swedish (`🟢 FAS
/// 1: …`) over bare boxes: the phase lines are the steps and the boxes
/// their tasks, the first phase done by its ticks. Before, each box was
/// a step of its own.
#[test]
fn plain_step_lines_in_other_languages_are_the_steps() {
    let (status, v, _) = json("first-sight-plain-fas");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        ["Infrastruktur & Miljö", "Kärnarkitektur", "Identitet"]
    );
    assert_eq!(done(&v, 0), [true, false, false]);
}

/// Numbered steps under `## P0 …` and `## P1 …` hold boxes; those under
/// `## P2 …` are written in plain bullets. They are steps of the same
/// series, not dropped; the appendix's `### 3.1 Glossary` is not.
#[test]
fn numbered_steps_without_boxes_beside_boxed_ones_are_kept() {
    let (status, v, _) = json("first-sight-unboxed-tier");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "0.1 Deputies' handles on hover",
            "0.2 Commit the UI polish",
            "1.1 Law coverage 2020–2023",
            "2.1 Senate",
            "2.2 Compare lists"
        ]
    );
    assert_eq!(done(&v, 0), [false, false, false, false, false]);
}

/// A roadmap's directions, one headed `Sharing: video export — DONE`,
/// then a priority list naming each: the listed step that heading names
/// is done, and the reading says the mark came from elsewhere. Before,
/// the finished export would have been redone.
#[test]
fn a_done_heading_elsewhere_marks_the_step_it_names() {
    let (status, v, _) = json("first-sight-done-direction");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, false, false]);
    assert!(
        codes(&v, "guesses").contains(&"reading::done_elsewhere".to_string()),
        "{v}"
    );
}

/// An ExecPlan's progress log stamped with a time zone (`(2025-12-29 21:08
/// CET) Task 1: …`) marks the task it names; lettered parts (`Task 2a`,
/// `Task 2b`) mark their task done when every part is ticked, and never
/// become steps of their own. Before, no mark was read: finished work
/// would have run again.
#[test]
fn a_progress_log_with_zones_and_parts_marks_its_tasks() {
    let (status, v, _) = json("first-sight-progress-parts");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0).len(), 4, "{v}");
    assert_eq!(done(&v, 0), [true, true, false, false]);
}

/// `## Task template (copy for new work)` holding `### DEF-YYYYMMDD-### —
/// short description` and its boxes: a pattern to copy, listed as not
/// work. Before, it was dispatched as a step.
#[test]
fn a_template_for_entries_is_not_work() {
    let (status, v, _) = json("first-sight-entry-template");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        ["Import the ledger", "Reconcile the accounts"]
    );
    let not_work = v["tally"]["not_work"].as_array().expect("not work");
    assert_eq!(not_work.len(), 2, "{v}");
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
}

/// `### Settimana 1 ✅ COMPLETATA`: the done word in capitals, in the
/// plan's language, is a mark, not the week's name. Before, the week was
/// named `COMPLETATA`, and every later bare `### Settimana 1` was read as
/// restating it and dropped with its work.
#[test]
fn a_done_word_in_capitals_in_any_language_is_a_mark() {
    let (status, v, _) = json("first-sight-shouted-done");
    assert_eq!(status, 0, "{v}");
    let all: Vec<(String, bool)> = v["units"]
        .as_array()
        .expect("units")
        .iter()
        .flat_map(|u| u["sprints"].as_array().cloned().unwrap_or_default())
        .map(|s| {
            (
                s["name"].as_str().unwrap_or("").to_string(),
                !s["done"].is_null(),
            )
        })
        .collect();
    assert_eq!(all.len(), 4, "{v}");
    assert_eq!(all[0], ("Settimana 1".to_string(), true));
    assert!(all[1..].iter().all(|(_, d)| !d), "{v}");
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
}

/// `## 💡 Backlog (idee future)` is ideas for later and `## Критерии
/// готовности 0.3.0` the release's criteria: neither is a step. Before,
/// both were dispatched.
#[test]
fn ideas_for_later_and_criteria_with_a_version_are_not_steps() {
    let (status, v, _) = json("first-sight-ideas-and-criteria");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0), ["Setup", "Indexer configuration"]);
    assert_eq!(done(&v, 0), [true, false]);
    assert_eq!(v["tally"]["criteria"], 1, "{v}");
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
}

/// A phase whose numbered deliveries hold lists but one, written as
/// before/after prose: the phase is read at the level of its deliveries
/// like the phase before it. Before, the whole phase was one step beside
/// the first phase's deliveries (two levels at once).
#[test]
fn a_delivery_written_in_prose_keeps_its_phase_at_the_deliveries_level() {
    let (status, v, _) = json("first-sight-prose-step");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Homepage redesign",
            "Demo video",
            "Design system",
            "Loading states",
            "Humane error messages"
        ]
    );
}

/// `### Wave 1-2: …` under `## Phase 1`: the waves numbered after their
/// phase are its steps. Before, each phase was one step holding all its
/// waves.
#[test]
fn waves_numbered_after_their_phase_are_its_steps() {
    let (status, v, _) = json("first-sight-phase-waves");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Package foundation",
            "Client module",
            "Download progress",
            "Adapter management"
        ]
    );
}

/// "Las fases 2-4 son independientes entre sí y pueden hacerse en
/// paralelo": phases 2 to 4 wait for phase 1 only, and phase 5 for all
/// three, as the English sentence is read. Before, a sequence and a note
/// that the plan's words were not read.
#[test]
fn a_scoped_parallel_sentence_in_spanish_is_obeyed() {
    let (status, v, _) = json("first-sight-parallel-es");
    assert_eq!(status, 0, "{v}");
    let deps: Vec<serde_json::Value> = v["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| u["deps"].clone())
        .collect();
    assert_eq!(
        deps,
        [
            serde_json::json!([]),
            serde_json::json!(["Fase 1"]),
            serde_json::json!(["Fase 1"]),
            serde_json::json!(["Fase 1"]),
            serde_json::json!(["Fase 2", "Fase 3", "Fase 4"]),
        ]
    );
}

/// Work packages coded with a letter after their number (`### WP-01A —
/// Chess engine wrapper`) are the steps. Before, the codes were not read
/// and the plan's one checklist was its only step.
#[test]
fn codes_with_a_letter_after_the_number_name_steps() {
    let (status, v, _) = json("first-sight-lettered-codes");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "WP-01A: Chess engine wrapper",
            "WP-01B: Board UI wrapper",
            "WP-02A: PGN parsing"
        ]
    );
}

/// `## Critérios de aprovação por fase` holding `### Aprovação da Fase 1`
/// and its boxes: the phases' approval criteria, listed as such, not a
/// step after the last phase. Before, the section was dispatched.
#[test]
fn approval_criteria_by_phase_are_not_a_step() {
    let (status, v, _) = json("first-sight-criteria-by-phase");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0), ["Fundação", "Catálogo"]);
    assert_eq!(
        v["tally"]["not_work"].as_array().map(Vec::len),
        Some(3),
        "{v}"
    );
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
}

/// Coded steps whose name opens with a quote (`### T2 — "Why is this
/// here?" popover`) or carry a note before the dash (`### T4 (stretch) —
/// …`) are steps like their siblings. Before, both were dropped without a
/// word.
#[test]
fn coded_steps_named_in_quotes_or_with_a_note_are_kept() {
    let (status, v, _) = json("first-sight-quoted-codes");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "T1: Fix the importer's date parsing",
            "T2: \"Why is this here?\" popover",
            "T3: Reverse search",
            "T4: Skill ignore list"
        ]
    );
}

/// `## Completed Features` and `## Missing / Pending Features`, each a
/// list of boxed features, are the columns of a board: every feature is a
/// step, done in the first column. A section of notes without boxes after
/// them is not a column. Before, each column was one step.
#[test]
fn sections_of_done_and_pending_features_are_a_board() {
    let (status, v, _) = json("first-sight-feature-board");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Project scaffolding",
            "Local persistence",
            "Dark theme",
            "Testing",
            "Text to speech"
        ]
    );
    assert_eq!(done(&v, 0), [true, true, true, false, false]);
}

/// A feature table whose `Milestone` column names the rows of the
/// milestone table breaks those milestones down: its rows are their
/// tasks, not a second unit of the same work. A milestone with an open
/// feature is open.
#[test]
fn a_table_naming_other_steps_in_a_column_is_their_breakdown() {
    let (status, v, _) = json("first-sight-breakdown-table");
    assert_eq!(status, 0, "{v}");
    assert_eq!(v["units"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "v0.1.0: Animation foundation",
            "v0.2.0: External data",
            "v0.3.0: Customisation",
            "v1.0.0: First release"
        ]
    );
    assert_eq!(done(&v, 0), [true, true, false, false]);
    assert_eq!(v["tally"]["in_sprints"], 6, "{v}");
}

/// Rows numbered on from one stage's table to the next (`1`–`3` under
/// `### 阶段一`, `4`–`5` under `### 阶段二`) are the steps; the stages
/// group them. Before, each stage was one step.
#[test]
fn rows_counted_across_stage_tables_are_the_steps() {
    let (status, v, _) = json("first-sight-rows-across-stages");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "AL 状态机",
            "网络扫描",
            "PDO 映射",
            "Watchdog 机制",
            "错误恢复"
        ]
    );
    assert_eq!(done(&v, 0), [false; 5]);
}

/// `## PHASE A — … — TERMINEE`: the phase is named as written (the `A`
/// inside `PHASE` is not its id) and done by its unaccented mark.
#[test]
fn lettered_phases_keep_their_word_and_an_unaccented_done_mark() {
    let (status, v, _) = json("first-sight-lettered-phases");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "PHASE A: Documentation & garde-fous",
            "PHASE B: Collecteurs de données",
            "PHASE E: Moteur de signaux"
        ]
    );
    assert_eq!(done(&v, 0), [true, false, false]);
}

/// `### 🎯 Critérios de aceite por fase` restating each phase (`#### ✅
/// FASE 1 APROVADA QUANDO:`) holds the phases' exit criteria. Before, it
/// was a second unit whose steps were marked done by their ✅.
#[test]
fn a_criteria_section_restating_the_phases_is_their_criteria() {
    let (status, v, _) = json("first-sight-criteria-section");
    assert_eq!(status, 0, "{v}");
    assert_eq!(v["units"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(
        names(&v, 0),
        ["Infraestrutura (Semanas 1-2)", "Calendários (Semanas 3-4)"]
    );
    assert_eq!(done(&v, 0), [false, false]);
    let exit = |k: usize| v["units"][0]["sprints"][k]["exit"].as_array().map(Vec::len);
    assert_eq!((exit(0), exit(1)), (Some(2), Some(1)), "{v}");
    assert_eq!(v["tally"]["criteria"], 3, "{v}");
}

/// Checklists under `## 1.` to `## 3.` and under `#### 4.1.1` inside `## 4.
/// Tests and tuning`: the fourth step is section 4, as its siblings are
/// sections; its parts are its tasks, and one open box keeps it open.
#[test]
fn groups_nested_in_the_next_numbered_section_are_that_step() {
    let (status, v, _) = json("first-sight-nested-groups");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Core calculations",
            "Dashboard component",
            "Refactor",
            "Tests and tuning"
        ]
    );
    assert_eq!(done(&v, 0), [true, true, true, false]);
}

/// `### Fase 1` holding `#### Task 1.1` and `#### Task 1.2`, read as a
/// unit: its tasks are its steps. Before, they were grouped into one step
/// per major number, so each phase was one step named after its first
/// task and the others were folded into it.
#[test]
fn the_tasks_of_a_phase_read_as_a_unit_are_its_steps() {
    let (status, v, _) = json("first-sight-phase-tasks");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Implementar API Routes (1.5 dias)",
            "Configurar RLS Policies (1 dia)"
        ]
    );
    assert_eq!(
        names(&v, 1),
        ["Página Principal (1.5 dias)", "Modal CRUD (1 dia)"]
    );
}

/// Bold lines `**Step 1: …**` to `**Step 3: …**` counted on across the
/// phases that group them are the steps, each with its checklist; the
/// design sections named after the phases hold none. Before, each phase
/// was one step.
#[test]
fn bold_step_lines_counted_through_the_plan_are_the_steps() {
    let (status, v, _) = json("first-sight-counted-steps");
    assert_eq!(status, 0, "{v}");
    let all: Vec<String> = (0..2).flat_map(|u| names(&v, u)).collect();
    assert_eq!(all, ["项目脚手架", "config/ 配置层", "生成器核心"]);
    assert_eq!(done(&v, 0), [false, false]);
    assert_eq!(v["units"][1]["deps"], serde_json::json!(["游戏 UI 模板"]));
}

/// `#### Weeks 1-4: Core Engine` under a `### Week-by-Week Plan` in each
/// phase: the spans of weeks are the steps, and the phases, not their
/// like-named parts, are the units, one after another. Before, the weeks
/// were not read, and each phase was one step.
#[test]
fn spans_of_weeks_under_each_phase_are_the_steps() {
    let (status, v, _) = json("first-sight-week-spans");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        ["Core Engine", "Developer Experience — 60% Complete"]
    );
    assert_eq!(names(&v, 1), ["Cloud Infrastructure", "Event Store"]);
    assert_eq!(done(&v, 0), [true, false]);
    assert_eq!(
        v["units"][1]["deps"],
        serde_json::json!(["Foundation (Weeks 1-8) — 90% Complete"])
    );
}

/// A plan pasted whole into a ```` ````markdown ```` block is read as the
/// plan. Before, it was refused: nothing outside the block.
#[test]
fn a_plan_pasted_into_one_markdown_block_is_read() {
    let (status, v, _) = json("first-sight-fenced-plan");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0), ["Verify artifacts"]);
    assert_eq!(done(&v, 0), [false]);
    assert_eq!(v["tally"]["in_sprints"], 3, "{v}");
}

/// "Sprint 2-3 dependen de Sprint 1", "Sprint 4 depende de Sprint 2-3"
/// in a notes list: the sprints are a graph, 2 and 3 at once after 1, 4
/// after both. Before, one sequence.
#[test]
fn statements_of_what_each_sprint_waits_for_make_a_graph() {
    let (status, v, _) = json("first-sight-stated-deps");
    assert_eq!(status, 0, "{v}");
    let deps: Vec<Value> = v["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| u["deps"].clone())
        .collect();
    assert_eq!(
        deps,
        [
            serde_json::json!([]),
            serde_json::json!(["Sprint 0"]),
            serde_json::json!(["Sprint 1"]),
            serde_json::json!(["Sprint 1"]),
            serde_json::json!(["Sprint 2", "Sprint 3"]),
        ]
    );
}

/// `### Крок 1` … `4` under `## 2. Незмінний цикл роботи агента` (the
/// agent's cycle, repeated for each defect) beside `### Milestone 0` … `2`:
/// the milestones are the steps. Before, the cycle's four steps were, and
/// every milestone was dropped.
#[test]
fn a_routine_repeated_for_each_step_is_not_the_steps() {
    let (status, v, _) = json("first-sight-routine-steps");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Public repository and reporting",
            "Baseline freeze",
            "Golden fixtures"
        ]
    );
}

/// `## Sprint Sıralaması ve Bağımlılıklar` ("sprint order and
/// dependencies") names no sprint `S`: a letter id ends where a word in
/// any script would go on.
#[test]
fn a_letter_before_a_word_in_another_script_is_no_id() {
    let (status, v, _) = json("first-sight-unicode-word");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0), ["Proje İskeleti", "Veri Toplama"]);
}

/// `— ABGESCHLOSSEN (2026-06-05)`, `— COMPLETE (2026-06-05)`: a done word
/// with its date after it marks the phase done. Before, the date hid it.
#[test]
fn a_done_word_followed_by_its_date_marks_the_step() {
    let (status, v, _) = json("first-sight-dated-done");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0), ["Marker", "Karten", "Backend", "UI"]);
    assert_eq!(done(&v, 0), [true, true, true, false]);
}

/// Tasks coded `T1`, `T1b`, `T2` with an index table whose `يعتمد على`
/// ("depends on") column orders them: `T1b` is a step, and T2 and T3 wait
/// for it only. Before, `T1b` was dropped and the plan was one sequence.
#[test]
fn part_codes_are_steps_and_an_index_in_arabic_orders_them() {
    let (status, v, _) = json("first-sight-part-codes");
    assert_eq!(status, 0, "{v}");
    let units: Vec<(String, Value)> = v["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| {
            (
                u["name"].as_str().unwrap_or_default().to_string(),
                u["deps"].clone(),
            )
        })
        .collect();
    assert_eq!(units.len(), 4, "{v}");
    assert!(units[1].0.starts_with("T1b"), "{v}");
    assert_eq!(units[2].1, serde_json::json!([units[1].0]));
    assert_eq!(units[3].1, serde_json::json!([units[1].0]));
    assert_eq!(done(&v, 0), [true]);
}

/// Phases marked ✅ whose own lines say otherwise are open, and the reading
/// says so: a line ending `(pendiente config)`, and a line without the ✅
/// its siblings end with. A list of states in parentheses marks nothing.
/// Before, all three read done, and the open work was never dispatched.
#[test]
fn lines_left_pending_keep_a_phase_marked_done_open() {
    let (status, v, _) = json("first-sight-line-marks");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [false, false, true]);
    assert!(
        codes(&v, "guesses").contains(&"reading::open_lines".to_string()),
        "{v}"
    );
}

/// `## Phase 2 — Pro Features (Sprint 3–4)` spans two sprints and is no
/// one of them: the phases are the steps, and none is dropped. Before, the
/// span made the phase a sprint, the sprint word won, and Phases 0 and 3
/// were left out (their open line in no sprint).
#[test]
fn a_phase_spanning_sprints_is_no_sprint_and_no_phase_is_dropped() {
    let (status, v, _) = json("first-sight-sprint-span");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Skeleton & Infrastruktur",
            "MVP (Sprint 1–2)",
            "Pro Features (Sprint 3–4)",
            "Polish & Wachstum"
        ]
    );
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
}

/// `## 1.` and `## 4.` hold checklists, `## 2.` and `## 3.` between them
/// hold prose and a command: all four sections of the series are steps.
/// Before, the middle of the runbook was dropped without a word.
#[test]
fn numbered_sections_between_two_checklists_are_steps_too() {
    let (status, v, _) = json("first-sight-series-gaps");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Pre-release checks",
            "Bump the version",
            "Publish a single file",
            "Publish the release"
        ]
    );
}

/// Each stage's table says what each task waits for (`| T3.1 | … | T1.3
/// |`): the tasks are the steps, ordered by that column across the
/// tables, so the cookie work runs beside the backend work and the test
/// waits for the lock it tests. Before, the three stages ran one after
/// another, and the dependency column was not read.
#[test]
fn dependency_columns_across_stage_tables_order_the_tasks() {
    let (status, v, _) = json("first-sight-stage-dependency-tables");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().unwrap();
    assert_eq!(units.len(), 6, "{v}");
    assert!(deps(&v, 0).is_empty() && deps(&v, 3).is_empty(), "{v}");
    assert_eq!(deps(&v, 2), [units[1]["name"].as_str().unwrap()]);
    assert_eq!(deps(&v, 5), [units[2]["name"].as_str().unwrap()]);
}

/// A lane table with a `Depends On` column and a mermaid graph naming the
/// lanes by code and name (`L1[L1 Ingestion]`): each lane is a unit, and a
/// cell naming no lane (`All editing lanes`) waits for every lane before
/// it. Before, the plan's sections (`Current State`, `Lane Map`) were read
/// as its steps.
#[test]
fn a_lane_table_with_a_dependency_column_is_the_units() {
    let (status, v, _) = json("first-sight-lane-map");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().unwrap();
    assert_eq!(units.len(), 4, "{v}");
    assert!(units[0]["name"].as_str().unwrap().starts_with("L0"), "{v}");
    assert_eq!(deps(&v, 3).len(), 3, "{v}");
}

/// A checklist of parent tasks over sub-tasks (`- [x] 1.0 Project setup`
/// over `- [x] 1.1 …`) is the steps; the numbered bold notes on how to
/// keep the list (`1. **After finishing a sub-task:** mark it [x]`) are
/// not. Before, the notes were the three steps, the first read done from
/// its `[x]`, and the whole checklist was in no sprint.
#[test]
fn a_task_tree_is_the_steps_over_bold_notes_on_keeping_it() {
    let (status, v, _) = json("first-sight-tree-over-notes");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "1.0 Project setup",
            "2.0 Sign-in and users",
            "3.0 Patient records",
            "4.0 Appointments"
        ]
    );
    assert_eq!(done(&v, 0), [true, true, false, false]);
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
}

/// `## ✅ Fase 1` beside `## 🚧 Fase 2`: the plan marks its phases with
/// states, so the ✅ is done, even among headings decorated with other
/// pictographs (`🛡`, `🚫`, `💬`). Before, the ✅ was taken for one more
/// decoration and the finished phase would have been run again.
#[test]
fn a_check_beside_another_state_mark_is_done() {
    let (status, v, _) = json("first-sight-state-emoji");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, false, false]);
}

/// A frontmatter that records the writing of the document
/// (`stepsCompleted: [step-01-validate-prerequisites, …]`, `status:
/// 'complete'`) says the breakdown is written, not that its stories are
/// built. Before, every story read done and none would have run.
#[test]
fn the_status_of_writing_the_plan_marks_no_story_done() {
    let (status, v, _) = json("first-sight-authored-frontmatter");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [false, false]);
}

/// Headings numbered with keycaps (`#### 1️⃣ Modo solo lectura`) are
/// numbered headings, and the plan's legend (`🟢 — Hecho`) makes its 🟢 a
/// done mark: the section whose rows are all 🟢 is done. Before, the plan
/// was refused.
#[test]
fn keycap_numbers_and_a_legend_of_marks_are_read() {
    let (status, v, _) = json("first-sight-keycap-legend");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        ["Modo solo lectura", "Alertas útiles", "Permisos"]
    );
    assert_eq!(done(&v, 0), [false, true, false]);
}

/// Coded tasks (`### CORE-02: Storage module`) whose field lines say what
/// each waits for by code (`**Dependencies**: ENV-01`, `All previous
/// tasks`) are a graph of steps, and a `Sprint N` schedule restating some
/// of them by name is an index, not the steps. Before, the two phases
/// were the steps and the finished ENV-01 would have run again.
#[test]
fn coded_tasks_wait_for_the_codes_their_lines_name() {
    let (status, v, _) = json("first-sight-coded-dependencies");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().unwrap();
    assert_eq!(units.len(), 5, "{v}");
    assert_eq!(deps(&v, 3), ["ENV-01: Project structure"]);
    assert_eq!(deps(&v, 4).len(), 4, "{v}");
    assert!(!units[0]["sprints"][0]["done"].is_null(), "{v}");
}

/// `✅ **v0.2** — Core (all tasks done)` under `## Completed versions`
/// names the group `## v0.2 — Core` by its id: its steps are done, and
/// the groups it does not name stay open. Before, every step read open and
/// the finished versions would have been built again.
#[test]
fn a_done_line_naming_a_group_marks_its_steps_done() {
    let (status, v, _) = json("first-sight-done-groups");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, true, true, false]);
}

/// `状態：リリース済み` (state: released), written with the full-width
/// colon and the `済み` (done) after what was done: the version is done.
/// Before, no version read done and the released one would have run again.
#[test]
fn a_status_line_in_cjk_form_marks_its_step_done() {
    let (status, v, _) = json("first-sight-released-status");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, false, false]);
}

/// `## 4. DEFINITION OF DONE` names the criteria, it is no step marked
/// done: it is not dispatched, and nothing reads done. Before, it was a
/// step named `DEFINITION OF`, done.
#[test]
fn definition_of_done_is_no_done_mark() {
    let (status, v, _) = json("first-sight-definition-of-done");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "THE CLAIM PROTOCOL",
            "OWNERSHIP — default split",
            "BUILD ORDER"
        ]
    );
    assert_eq!(done(&v, 0), [false, false, false]);
}

/// `**依赖**: 1.1` lines are dependency lines in any script; a line naming
/// no step (`阶段一完成`, stage one complete) keeps its step after every
/// step before it; and a stage set aside as cancelled (`（已取消）`) is no
/// step. Before, the cancelled stage was dispatched and the tasks ran as
/// one sequence.
#[test]
fn dependency_lines_in_cjk_and_a_cancelled_stage() {
    let (status, v, _) = json("first-sight-cjk-dependency-lines");
    assert_eq!(status, 0, "{v}");
    let units = v["units"].as_array().unwrap();
    assert_eq!(units.len(), 5, "{v}");
    assert_eq!(deps(&v, 2), ["项目初始化"]);
    assert_eq!(deps(&v, 3).len(), 3, "{v}");
    assert!(!v.to_string().contains("APK"), "{v}");
}

/// Kiro's optional sub-tasks (`- [ ]* 1.3 Write a property test`) are task
/// lines, open until ticked: the task holding one is not done. Before, the
/// star hid the box and the task read done with its test never written.
#[test]
fn an_optional_kiro_task_left_open_keeps_its_task_open() {
    let (status, v, _) = json("first-sight-kiro-optional");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [false, true, false]);
}

/// `**Plans:** 3/3 plans complete` over three open plan boxes, with no
/// index entry or date for the phase: the count contradicts every box it
/// counts, and the phase stays open. A phase the index marks done with its
/// date stays done. Before, the dashboard phase read done and its three
/// plans would never have run.
#[test]
fn a_bare_count_over_open_boxes_is_not_done() {
    let (status, v, _) = json("first-sight-count-over-open");
    assert_eq!(status, 0, "{v}");
    assert_eq!(all_done(&v), [true, false]);
}

/// `### Sprints 4-6: Medium priority` heads one step spanning three
/// sprints; and `### Phase 2: Integration (Sprint 7)` in a closing
/// checklist refers to `### Sprint 7: Integration`, the plan's own step.
/// Before, the span headings were dropped with their work, and sprint 7
/// was read twice, in two units.
#[test]
fn sprint_span_headings_are_steps_and_an_aside_restating_a_step_is_not() {
    let (status, v, _) = json("first-sight-range-headings");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["0", "1-3", "4-6", "7"]);
}

/// `Milestones 1-3 are complete.` states where the plan stands: those
/// steps are done, unless one says itself that work is left (`**Status**:
/// in progress`). `**Prerequisite**: Milestones 1-3 complete.` states a
/// condition and marks nothing. Before, the statement was not read and
/// finished milestones would have run again.
#[test]
fn a_span_of_steps_stated_done_marks_them() {
    let (status, v, _) = json("first-sight-done-span");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, true, false, false, false]);
}

/// `- **AUTH-US2**: Depends on AUTH-US1` under spec-kit's `### User Story
/// Dependencies` names stories by the codes in their phases' headings
/// (`## Phase 4: User Story AUTH-US2 - Login`): each story waits for the
/// one it names. Before, only the phase list was read, and all four
/// stories would have started at once after the foundation.
#[test]
fn stories_named_by_their_codes_wait_for_what_they_name() {
    let (status, v, _) = json("first-sight-coded-stories");
    assert_eq!(status, 0, "{v}");
    assert_eq!(deps(&v, 3), ["Phase 2", "Phase 3"]);
    assert_eq!(deps(&v, 4), ["Phase 2", "Phase 4"]);
    assert_eq!(deps(&v, 5), ["Phase 2", "Phase 5"]);
}

/// `### CLAUDE · FIX-01 — Verify the webhook signature`: a coded heading
/// after its owner's label is a step, as the code alone is. Before, the
/// plan was refused (or its `## Why split the work?` read as a step).
#[test]
fn a_coded_heading_after_its_owner_is_a_step() {
    let (status, v, _) = json("first-sight-owner-codes");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_total(&v), 3, "{v}");
    assert!(
        names(&v, 0)[0].contains("Verify the webhook signature"),
        "{v}"
    );
}

/// `- [✓] Install the fonts` is a ticked box, and `- Note: …` among the
/// ticks is a remark, not work left open: the phases so ticked are done.
/// `[~]` is still open. Before, the check marks read as plain text and
/// no phase was done: finished work would have run again.
#[test]
fn boxes_ticked_with_a_check_mark_are_ticked() {
    let (status, v, _) = json("first-sight-check-marks");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, true, false]);
}

/// `| **Total** | **128** | - | **9h** |` closes a table of work by
/// summing it: no step. Before, "Total" was read as an open step and
/// would have been sent to an agent.
#[test]
fn a_closing_total_row_is_no_step() {
    let (status, v, _) = json("first-sight-total-row");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        ["module-ws", "module-eval", "module-chat", "module-kb"]
    );
}

/// `## Wave 1: Parallel creation` ("Launch these 2 subagents
/// concurrently") holding `### Subagent 1`, `### Subagent 2`, then `## Wave
/// 2: Sequential execution` holding `### Step 1`, `### Step 2`: each
/// subagent is a unit, and the second wave waits for both. Before, only
/// the steps were read, and the subagents' work was counted as no work.
#[test]
fn sections_of_a_parallel_wave_are_units_and_the_next_wave_waits() {
    let (status, v, _) = json("first-sight-wave-sections");
    assert_eq!(status, 0, "{v}");
    let u = units(&v);
    assert_eq!(u.len(), 3, "{v}");
    assert!(deps(&v, 0).is_empty() && deps(&v, 1).is_empty(), "{v}");
    assert_eq!(deps(&v, 2), [u[0].clone(), u[1].clone()]);
    assert_eq!(
        names(&v, 2),
        ["Install the benchmark plugin", "Collect the baseline"]
    );
}

/// `### Task 1.2` whose `Depends on: 1.3` names a later task runs after
/// it, as whole-numbered steps already did; the tasks' lines then make a
/// graph. Before, dotted ids were never moved: the test skeleton ran
/// before the hook it tests.
#[test]
fn a_dotted_task_naming_a_later_one_runs_after_it() {
    let (status, v, _) = json("first-sight-dotted-later");
    assert_eq!(status, 0, "{v}");
    let u = units(&v);
    let at = |name: &str| u.iter().position(|n| n == name).unwrap();
    assert!(
        at("Write the hook skeleton") < at("Write the test skeleton"),
        "{v}"
    );
    assert_eq!(
        deps(&v, at("Write the test skeleton")),
        ["Write the hook skeleton"]
    );
    assert_eq!(
        deps(&v, at("Add the policies file")),
        ["Create the config directory"]
    );
}

/// `## Vision` over `1. **Deepen the quality** …`: the plan's aims, not
/// its steps; the horizons hold the work. Before, the three aims were
/// read as the steps, and the horizons' items as no work.
#[test]
fn a_numbered_list_of_aims_under_vision_is_no_steps() {
    let (status, v, _) = json("first-sight-vision-list");
    assert_eq!(status, 0, "{v}");
    assert!(
        !v["units"].to_string().contains("Deepen the quality"),
        "{v}"
    );
    assert_eq!(names(&v, 0), ["Short term", "Medium term"]);
}

/// `### ✅ Phase 1-3: shipped in March` after `### Phase 1` to `### Phase 3`
/// sums up the phases the plan heads one by one: no step of its own (and
/// its mark is no mark on phase 3, whose box is open). Before, it was read
/// as a fourth step, in a unit of its own.
#[test]
fn a_span_heading_summing_up_headed_steps_is_no_step() {
    let (status, v, _) = json("first-sight-summary-span");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
    assert_eq!(done(&v, 0), [true, true, false]);
}

/// An `## Execution Order` table naming each phase by number with a
/// Dependencies column orders the phases, though it ends with a row that
/// names no phase (`| 5 | Verification | All phases |`). Before, the extra
/// row kept the table from being read, and phase 4, which waits for
/// nothing, waited for phase 3.
#[test]
fn an_order_table_with_a_row_of_no_step_still_orders_the_steps() {
    let (status, v, _) = json("first-sight-order-table-extra-row");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 4, "{v}");
    assert_eq!(deps(&v, 1), ["Phase 1"]);
    assert_eq!(deps(&v, 2), ["Phase 1"]);
    assert!(deps(&v, 3).is_empty(), "{v}");
}

/// `## フェーズ一覧` is "the list of phases": the numeral 一 run into the
/// word 覧 is part of that word, not phase one. Before, it was read as a
/// step named `覧`, and the real phase 1 as a repeated id.
#[test]
fn a_numeral_run_into_a_word_numbers_no_step() {
    let (status, v, _) = json("first-sight-numeral-word");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["0", "1"]);
    assert!(v["guesses"].as_array().is_none_or(|g| g.is_empty()), "{v}");
}

/// `## Approach` over bold items saying how, then `## Порядок выполнения`
/// (order of execution) over a plain numbered list: the ordered list is
/// the steps, the approach describes them. Before, the approach's three
/// items were read as the steps and the four steps of the order were no
/// work.
#[test]
fn an_order_of_execution_is_the_steps_over_an_approach() {
    let (status, v, _) = json("first-sight-approach-and-order");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_total(&v), 4, "{v}");
    assert!(names(&v, 0)[0].starts_with("Download three photos"), "{v}");
}

/// `| **A2** Registry | ✅ Done |` in a status table is part 2 of phase
/// A, a code of its own, not phase 2: it marks no step. Before, the rows
/// `A1`, `A2` marked phases 1 and 2 done, and phase 2's open work (the
/// bot client, `🟡 Partial` on its own row) would never have run.
#[test]
fn a_status_row_coded_with_another_letter_marks_no_step() {
    let (status, v, _) = json("first-sight-coded-status-rows");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, false, false]);
}

/// `Update the status emoji after each step: ✅ (done), ⬜ (not done), ⚠️
/// (in progress)` is the plan's own legend: an item led by ✅ is ticked,
/// one led by ⚠️ or ⬜ open. Before, the marks read as text and no phase
/// was done: finished upgrades would have run again.
#[test]
fn items_led_by_the_marks_of_a_legend_in_a_sentence_are_boxes() {
    let (status, v, _) = json("first-sight-sentence-legend");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, false, false]);
}

/// A table whose `Depends on` column names rows (`| M2 | … | M1 |`) that
/// the reading could not tie to the sprints: the sprints run one after
/// another, which is safe, and the reading says so and asks. Before, it
/// said nothing.
#[test]
fn an_order_table_the_reading_could_not_follow_is_said() {
    let (status, v, _) = json("first-sight-order-unread");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 1, "{v}");
    let codes: Vec<&str> = v["guesses"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["code"].as_str())
        .collect();
    assert!(codes.contains(&"reading::order_unread"), "{v}");
}

fn all_done(v: &Value) -> Vec<bool> {
    v["units"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|u| u["sprints"].as_array().unwrap().iter())
        .map(|s| !s["done"].is_null())
        .collect()
}

/// A span of steps marks them done only as a statement: `Phases 1-2
/// complete: internal alpha` names a target, `Phases 1-3 complete the MVP`
/// uses the word as a verb, and a status line in one unit's section speaks
/// for that unit alone.
#[test]
fn a_span_marks_steps_done_only_as_a_statement_of_its_own_unit() {
    let (_, v, _) = json("first-sight-review-span-target");
    assert!(all_done(&v).iter().all(|d| !d), "{v}");
    let (_, v, _) = json("first-sight-review-span-verb");
    assert!(all_done(&v).iter().all(|d| !d), "{v}");
    let (_, v, _) = json("first-sight-review-span-unit");
    assert_eq!(all_done(&v), [true, true, false, false]);
}

/// `Do not run these in parallel` says the wave's steps go one after
/// another: no unit of its own each.
#[test]
fn a_wave_denying_parallel_work_keeps_its_order() {
    let (_, v, _) = json("first-sight-review-wave-denied");
    let u = units(&v);
    assert!(u.len() <= 2, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
}

/// A table of tasks numbered 1 to 6 with a dependency column does not
/// order phases 1 to 3 by its rows' numbers.
#[test]
fn a_task_table_numbered_alike_does_not_order_the_phases() {
    let (_, v, _) = json("first-sight-review-task-table");
    assert_eq!(units(&v).len(), 1, "{v}");
}

/// `| sum | Add up a numeric column | Todo |` is work, not a total.
#[test]
fn a_row_of_work_named_sum_is_a_step() {
    let (_, v, _) = json("first-sight-review-sum-row");
    assert_eq!(sprint_total(&v), 3, "{v}");
}

/// Where step headings carry the legend's symbols (`## Step 2: Export
/// ⬜`), items led by them (`- ✅ CSV export`, what the step will give)
/// are no ticks, and plain lists stay plain.
#[test]
fn a_legend_marking_headings_leaves_items_alone() {
    let (_, v, _) = json("first-sight-review-legend-headings");
    assert_eq!(done(&v, 0), [true, false, false]);
}

/// `## Phases 1-3: Overview` before `## Phase 1` … `## Phase 3` is an
/// overview of them, not a fourth step.
#[test]
fn a_span_heading_over_steps_headed_after_it_is_no_step() {
    let (_, v, _) = json("first-sight-review-span-overview");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"]);
}

/// `### 1 - …` to `### 3 - …` under `## SPRINT 1` and `### 4 - …` under
/// `## SPRINT 2`: a count that runs on across the sprints is the author's
/// list of steps, each a step though its body holds no list.
#[test]
fn steps_counted_across_sprints_are_the_steps() {
    let (_, v, _) = json("first-sight-running-series");
    assert_eq!(sprint_ids(&v, 0), ["1.1", "1.2", "1.3", "2.1", "2.2"]);
    assert_eq!(names(&v, 0)[3], "Rewrite Selector.tsx - full popup");
}

/// Checklists under `## D00 …` to `## D02 …`, some behind a frame of no
/// number (`### Work items`), are parts of those ids; the common gate's
/// checklist under `## 2. …` is no id of the series, and its open lines
/// are said to be outside every sprint.
#[test]
fn checklists_behind_a_frame_belong_to_their_coded_heading() {
    let (_, v, _) = json("first-sight-checklist-frame");
    let names = names(&v, 0);
    assert_eq!(names.len(), 3, "{v}");
    assert!(names[0].starts_with("D00"), "{names:?}");
    let warned = v["warnings"].as_array().unwrap();
    assert!(
        warned.iter().any(|w| w["code"] == "plan::work_outside"),
        "{v}"
    );
}

/// `## Status Legend` holding `- [ ] Not started` and `- [x] Completed`
/// explains the marks: no step to dispatch.
#[test]
fn a_legend_of_boxes_is_no_step() {
    let (_, v, _) = json("first-sight-status-legend");
    assert_eq!(names(&v, 0).len(), 3, "{v}");
    assert_eq!(done(&v, 0), [true, false, false]);
}

/// `- M0 Base and CI: …` to `- M3 …` under `## Milestones`: short codes
/// counted in one series are the steps (said as a guess), not the plan's
/// sections; a lone `Q3` in a risk is none.
#[test]
fn items_coded_in_one_series_are_the_steps() {
    let (_, v, _) = json("first-sight-series-codes");
    let names = names(&v, 0);
    assert_eq!(names.len(), 4, "{v}");
    assert!(names[2].starts_with("Authentication"), "{names:?}");
    let guessed = v["guesses"].as_array().unwrap();
    assert!(!guessed.is_empty(), "{v}");
}

/// `| V5.1 | … | ✅ released |` in a `| Version | Theme | Status |` table
/// marks the step headed `## V5.1 — …` done; a code glued to its number
/// names the step whose name opens with it.
#[test]
fn a_version_status_table_marks_the_versions_it_names() {
    let (_, v, _) = json("first-sight-version-status");
    assert_eq!(done(&v, 0), [true, true, true, false]);
}

/// `# Version 2.1 – …` sections with a `| Version | Status |` table: the
/// releases are the steps (said as a guess), done by the table's
/// `Released`, where the plan had been refused.
#[test]
fn releases_written_out_are_the_steps() {
    let (status, v, _) = json("first-sight-written-versions");
    assert_eq!(status, 0, "{v}");
    let ids = sprint_ids(&v, 0);
    assert_eq!(ids, ["2.0", "2.1", "2.2", "2.3"], "{v}");
    assert_eq!(done(&v, 0), [true, true, true, false]);
}

/// A table of coded tasks (`T#2.4I`) whose `Dépendances` cells name other
/// rows by code (`T#2.1D, T#2.2D`, or `T2.4I` with the `#` left out) is a
/// graph; its `État` column says which are done.
#[test]
fn coded_rows_wait_for_the_rows_they_name() {
    let (_, v, _) = json("first-sight-coded-table-deps");
    assert_eq!(units(&v).len(), 5, "{v}");
    let waits: Vec<usize> = (0..5).map(|k| deps(&v, k).len()).collect();
    assert_eq!(waits, [0, 0, 0, 3, 1]);
    let done: Vec<bool> = (0..5).flat_map(|k| done(&v, k)).collect();
    assert_eq!(done, [true, true, false, false, false]);
}

/// An ExecPlan's `## Validation and acceptance` checklist is its criteria,
/// not a step to dispatch: its open check (`On a GPU machine, …`) is no
/// work for a worker.
#[test]
fn an_execplans_validation_section_is_no_step() {
    let (_, v, _) = json("first-sight-execplan-validation");
    assert_eq!(names(&v, 0), ["Progress"], "{v}");
}

/// `## Implementation log` repeating `### Phase 1` and `### Phase 2` with
/// boxes that restate the phases' own parts is a tracking list: one unit,
/// each step once, done by its box.
#[test]
fn a_section_restating_the_steps_is_their_tracking_list() {
    let (_, v, _) = json("first-sight-tracking-repeat");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1.1", "1.2", "2.1", "2.2"]);
    assert_eq!(done(&v, 0), [true, true, false, false]);
}

/// Two units numbering their own phases alike (`## Backend`, `##
/// Frontend`, each with `### Phase 1`) restate nothing: both stay.
#[test]
fn units_numbering_their_phases_alike_both_stay() {
    let (_, v, _) = json("first-sight-review-same-phases");
    assert_eq!(units(&v).len(), 2, "{v}");
    assert_eq!(names(&v, 1), ["Pages", "Wiring"]);
}

/// `## Phase 1: Parallel implementation` holding `### Agent 1: …` to
/// `### Agent 3: …`: each agent's section is a unit after Phase 0, and
/// Phase 2 waits for all of them; said as an order the plan states.
#[test]
fn a_phase_of_agents_working_at_once_makes_a_unit_of_each() {
    let (_, v, _) = json("first-sight-phase-agents");
    assert_eq!(units(&v).len(), 5, "{v}");
    assert_eq!(deps(&v, 1).len(), 1);
    assert_eq!(deps(&v, 4).len(), 3);
    assert_eq!(v["detection"]["units"]["kind"], "phase_sections", "{v}");
}

/// `- **Day 1**:` to `- **Day 4**:` under `### Week 1` and `### Week 2`,
/// each with its nested tasks: the days are the steps of their weeks.
#[test]
fn days_written_as_bold_items_are_the_steps() {
    let (_, v, _) = json("first-sight-day-items");
    assert_eq!(sprint_ids(&v, 0), ["1.1", "1.2", "2.1", "2.2"], "{v}");
    assert_eq!(names(&v, 0)[2], "Day 3");
}

/// `## Wave 1: …` to `## Wave 3: …`, run one after another, are the steps;
/// the numbered checks under `## Verification` are not.
#[test]
fn waves_run_in_order_are_the_steps() {
    let (_, v, _) = json("first-sight-wave-steps");
    assert_eq!(
        names(&v, 0),
        [
            "Data model and settings",
            "Grouping and Markdown",
            "Publisher refactor"
        ],
        "{v}"
    );
}

/// `### 019: Response Quality Metrics` and `### 024: Context Window
/// Management` in a zero-padded catalogue of task cards are tasks, though
/// their names open or close with words of a section about the plan.
#[test]
fn cards_of_a_padded_catalogue_are_all_steps() {
    let (_, v, _) = json("first-sight-padded-cards");
    assert_eq!(names(&v, 0).len(), 4, "{v}");
}

/// Phases written alike read alike: `## Phase 3` listing `- [ ] **3.1** …`
/// a line each is read at its steps, as the phases before it whose
/// numbered items carry nested lines.
#[test]
fn phases_written_alike_read_at_one_level() {
    let (_, v, _) = json("first-sight-alike-phases");
    assert_eq!(
        sprint_ids(&v, 0),
        ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2"],
        "{v}"
    );
}

/// `| 3 | Operator console | **Shipped** |` while `### Stage 3 — Operator
/// console 🚧` says it is under way: the marks disagree, and the step stays
/// open rather than its open work hidden.
#[test]
fn a_table_does_not_mark_done_a_step_its_heading_says_is_under_way() {
    let (_, v, _) = json("first-sight-open-heading-table");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// The second review's regressions: plans this session's rules misread at
/// first and the session's first build read right. Each stays as that
/// build read it.
#[test]
fn the_second_reviews_plans_read_as_before() {
    // A `## Legend` section of chart work is work.
    let (_, v, _) = json("first-sight-review-legend-work");
    assert!(names(&v, 0).iter().any(|n| n == "Legend"), "{v}");
    // `- M1 MacBook Air` beside a checklist names a machine, not a step.
    let (_, v, _) = json("first-sight-review-hardware-series-codes");
    assert!(names(&v, 0).iter().all(|n| !n.contains("MacBook")), "{v}");
    // A document's revision table (`| 3 | … | Complete |`) marks no phase.
    let (_, v, _) = json("first-sight-review-doc-control-versions");
    assert!(done(&v, 0).iter().all(|d| !d), "{v}");
    // Two units with generic lines alike both stay.
    let (_, v, _) = json("first-sight-review-twin-units-repeats");
    assert_eq!(units(&v).len(), 2, "{v}");
    // A done phase of agents stays one done step.
    let (_, v, _) = json("first-sight-review-phase-agents-done-lost");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(done(&v, 0), [true, false]);
    // A sprint with its own checklist before its counted steps keeps it.
    let (_, v, _) = json("first-sight-review-running-series-own-tasks");
    assert_eq!(names(&v, 0).len(), 2, "{v}");
    // `## 01. Overview` of a zero-padded document is no step.
    let (_, v, _) = json("first-sight-review-padded-doc-sections");
    assert!(names(&v, 0).iter().all(|n| n != "Overview"), "{v}");
    // `**Parallelizable:** No` runs no agents at once.
    let (_, v, _) = json("first-sight-review-phase-agents-parallelizable-no");
    assert_eq!(units(&v).len(), 1, "{v}");
    // `## 3. Launch` after `## D00`…`## D02` is a step in its place.
    let (_, v, _) = json("first-sight-review-numbered-parents-other-series");
    assert_eq!(names(&v, 0).len(), 4, "{v}");
    // A recipe's `- **Step 1**:` under `## How to reproduce` is no step.
    let (_, v, _) = json("first-sight-review-step-items-recipe");
    assert_eq!(names(&v, 0)[0], "Work", "{v}");
    // Numbered items of `## 3. Export` do not cost the other sections' work.
    let (_, v, _) = json("first-sight-review-alike-numbered-sections-drop-work");
    assert_eq!(names(&v, 0).len(), 4, "{v}");
}

/// `## FASE 2: TESTING COMPLETO (Giorni 6-8)`: a word of a name written in
/// capitals (full testing) marks nothing done; `✅ COMPLETATA` does.
#[test]
fn a_done_word_inside_a_name_in_capitals_is_no_mark() {
    let (_, v, _) = json("first-sight-capitals-name");
    let all: Vec<bool> = (0..units(&v).len()).flat_map(|k| done(&v, k)).collect();
    assert_eq!(all, [false, false, false, true], "{v}");
}

/// `Status: **Implemented — local tests pass;` / `device scenarios
/// pending.**`: a status wrapped over lines says on its later line what is
/// left, and a done word with work left marks nothing done.
#[test]
fn a_status_wrapped_over_lines_is_read_whole() {
    let (_, v, _) = json("first-sight-wrapped-status");
    assert_eq!(done(&v, 0), [true, false, false, false, true], "{v}");
}

/// `## 阶段 2 —— 查询层 ✅` over a stage table with a row `📋 待实现` (to be
/// done): the phase still holds open work and is not done.
#[test]
fn an_open_row_of_its_own_table_keeps_a_marked_phase_open() {
    let (_, v, _) = json("first-sight-open-table-row");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
}

/// Phases over one numbered task list counted on across them (`## PHASE
/// 2` over `- [x] 3. …`), each task with sub-tasks of its own: the tasks
/// are the steps, each with its own box. One-line tasks stay each
/// phase's checklist.
#[test]
fn tasks_counted_on_across_phases_are_the_steps() {
    let (_, v, _) = json("first-sight-running-items");
    assert_eq!(names(&v, 0).len(), 6, "{v}");
    assert_eq!(done(&v, 0), [true, true, true, false, false, false], "{v}");
    let (_, v, _) = json("first-sight-running-oneliners");
    assert_eq!(names(&v, 0), ["Database", "Providers"], "{v}");
}

/// `- [x] **Status**: SKIPPED (…)` and `Cancelled — …`: work the plan says
/// will not be done leaves nothing to send an agent, as done work.
#[test]
fn a_skipped_or_cancelled_status_leaves_nothing_to_run() {
    let (_, v, _) = json("first-sight-skipped-status");
    assert_eq!(done(&v, 0), [true, true, false, true], "{v}");
}

/// A whole plan read as one sprint though it has sections of its own
/// (`# Phase 2: Payments rework` over `## Backend`, `## Frontend`, `##
/// Rollout`) may be meant as several steps: the reading says so and asks.
/// A plan titled as one sprint (`# Sprint: cache v2.1`) says it is one.
#[test]
fn a_whole_plan_read_as_one_sprint_asks() {
    let (_, v, _) = json("first-sight-one-sprint");
    assert_eq!(names(&v, 0).len(), 1, "{v}");
    assert!(
        codes(&v, "guesses").contains(&"reading::one_sprint".to_string()),
        "{v}"
    );
}

/// `## Phase 2.x: Follow-ups` among numbered phases: a letter after the
/// number's dot is the number's own (`2x`), and the plan is read, not
/// refused.
#[test]
fn a_letter_after_a_dot_is_part_of_the_id() {
    let (status, v, _) = json("first-sight-letter-id");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0).len(), 5, "{v}");
    assert_eq!(v["units"][0]["sprints"][3]["id"], "2x", "{v}");
}

/// `- [x] **Done** 2026-04-21` over a task's notes: the ticked line says
/// the task is done, and is no task line itself; the notes beside it are
/// no open work.
#[test]
fn a_ticked_done_line_marks_its_section_done() {
    let (_, v, _) = json("first-sight-done-item");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
    assert_eq!(v["tally"]["task_lines"], 2, "{v}");
}

/// The review's plans the first build read right, read so still: a status
/// goes on to the next line only where its first is unfinished, and done is
/// read on that first line (`Status: Next up` / `It builds on M1 ✅` is
/// open; `Status: Complete` / `The remaining phases build on these
/// tables.` is done); a skip put off or in a sentence is no skip; a row put
/// off to another milestone, or a status struck out, leaves its phase done;
/// items of phases leave the sections after them and their criteria alone.
#[test]
fn the_review_plans_read_as_a_person_reads_them() {
    let (_, v, _) = json("first-sight-review-wrapped-next-up");
    assert_eq!(done(&v, 0), [true, false, false, false], "{v}");
    let (_, v, _) = json("first-sight-review-wrapped-prose-after-done");
    assert_eq!(done(&v, 0), [true, false, true, false], "{v}");
    let (_, v, _) = json("first-sight-review-skipped-for-now");
    assert_eq!(done(&v, 0), [true, false, false, false, false], "{v}");
    let (_, v, _) = json("first-sight-review-skip-words-in-sentences");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
    let (_, v, _) = json("first-sight-review-rows-put-off");
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
    let (_, v, _) = json("first-sight-review-phase-items-out-of-scope");
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
    let tasks = v["units"][0]["sprints"][3]["tasks"].to_string();
    assert!(!tasks.contains("Social login"), "{v}");
    let (_, v, _) = json("first-sight-review-phase-items-exit-criteria");
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
    let exit = v["units"][0]["sprints"][1]["exit"].to_string();
    assert!(exit.contains("API tests pass on CI"), "{v}");
}

/// Sprints read from the headings that hold boxes (`## Store accounts`
/// under `# Release checklist`) while numbered sections with work of their
/// own (`## 1. Add the missing lint dependency` …) lie outside every
/// sprint: the reading says their work would not run, and asks.
#[test]
fn numbered_sections_left_out_of_a_checklist_reading_ask() {
    let (_, v, _) = json("first-sight-numbered-outside");
    assert!(
        codes(&v, "guesses").contains(&"reading::numbered_outside".to_string()),
        "{v}"
    );
}

/// The second review's plans: phases with a sub-section of their own keep
/// their reading (its boxes stay their work); `- [x] Merged` beside the
/// release's other steps is a step, not the phase's mark; `✅ Done —
/// nothing pending` is done; `Superseded by Step 4` and `Cancelled — the
/// planned cache was dropped` leave nothing to run; a row waiting for
/// another phase (`📋 待实现（等 Phase 5 完成）`) is this phase's open work.
#[test]
fn the_second_review_plans_read_as_a_person_reads_them() {
    let (_, v, _) = json("first-sight-review-phase-items-subsection");
    assert_eq!(names(&v, 0), ["Foundation", "Features"], "{v}");
    let (_, v, _) = json("first-sight-review-merged-line-is-a-step");
    assert_eq!(done(&v, 0), [false, false], "{v}");
    let (_, v, _) = json("first-sight-review-nothing-pending");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
    let (_, v, _) = json("first-sight-review-superseded-by");
    assert_eq!(done(&v, 0), [true, true, true, false], "{v}");
    let (_, v, _) = json("first-sight-review-row-waiting-for-a-phase");
    assert_eq!(done(&v, 0), [false, false, false], "{v}");
}

/// A plan holding a merge conflict git left unresolved has two versions of
/// its text: it is refused with an error at the conflict, not read as
/// both sides (`## Phase 2: Sync` and `## Phase 2: Sync and backup`, the
/// same work twice). Markers in a fenced example are text.
#[test]
fn an_unresolved_merge_conflict_is_refused_at_its_markers() {
    let (status, v, _) = json("bad-merge-conflict");
    assert_eq!(status, 1, "{v}");
    assert_eq!(v["problems"][0]["code"], "plan::merge_conflict", "{v}");
    assert_eq!(v["problems"][0]["line"], 8, "{v}");
}

/// `| M0（完了） | End-to-end proof |`, `| M2 ✅ | … |`: a done mark on a
/// table row's own key cell marks that step, and the step is named by its
/// row, not by the mark.
#[test]
fn a_mark_on_a_rows_key_cell_marks_its_step() {
    let (_, v, _) = json("first-sight-table-key-mark");
    assert_eq!(done(&v, 0), [true, false, true, false], "{v}");
    assert_eq!(names(&v, 0)[0], "M0: End-to-end proof", "{v}");
}

/// `## 1. v0.1.0 — native parser（リリース済）`: a closing aside of what was
/// done and 済 (done) marks the heading, as `（完了）` does.
#[test]
fn a_settled_aside_marks_its_heading_done() {
    let (_, v, _) = json("first-sight-settled-aside");
    assert_eq!(done(&v, 0), [true, false, true, false], "{v}");
}

/// `## 2.1. Fase 1: Lançamento Inicial`: an outline's number before the
/// step word leaves the word read, in any of the plans' languages.
#[test]
fn an_outline_number_before_a_step_word_is_read_past() {
    let (_, v, _) = json("first-sight-outline-numbered-phases");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    assert!(codes(&v, "guesses").is_empty(), "{v}");
}

/// A plan written as nothing but numbered instructions, in two lists
/// (`1) … 3)` under one heading, `1. … 4.` under the next): read, not
/// refused, as one series of steps counted on across the lists, and the
/// reading is a guess `start` asks about.
#[test]
fn numbered_instructions_alone_are_read_as_steps() {
    let (status, v, _) = json("first-sight-numbered-instructions");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprint_ids(&v, 0),
        ["1", "2", "3", "4", "5", "6", "7"],
        "{v}"
    );
    assert_eq!(
        names(&v, 0)[3],
        "Check that /app holds layout.tsx and page.tsx.",
        "{v}"
    );
    assert!(!codes(&v, "guesses").is_empty(), "{v}");
}

/// `Status markers: [ ] pending | [x] done | [~] in progress | [-]
/// skipped`: a box the plan's own legend says is skipped leaves nothing to
/// do, as a ticked one; one in progress stays open.
#[test]
fn a_box_the_legend_says_is_skipped_is_no_open_work() {
    let (_, v, _) = json("first-sight-legend-boxes");
    assert_eq!(done(&v, 0), [true, true, false, true], "{v}");
}

/// A plan without headings whose checklists sit under label lines
/// (`[0.1.0]` over `- [x] …`): each label is a step holding its list, not
/// each item, and the same label again goes on with its section.
#[test]
fn label_lines_over_checklists_are_the_steps() {
    let (_, v, _) = json("first-sight-label-lines-over-checklists");
    assert_eq!(names(&v, 0), ["[0.1.0]", "[0.2.0]", "[0.3.0]"], "{v}");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// `## 一、构建系统现代化` … `## 十二、其他建议`: sections numbered in
/// Chinese numerals are numbered headings, each a step with its number;
/// the one section holding a checklist is not the only step.
#[test]
fn sections_numbered_in_chinese_numerals_are_the_steps() {
    let (_, v, _) = json("first-sight-cjk-numbered-sections");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "10", "12"], "{v}");
    assert_eq!(names(&v, 0)[0], "构建系统现代化", "{v}");
}

/// `### Stream B` and `### Stream C` hold boxes; `### Stream A` (a table
/// of agents) and `### Stream D` (bullets) beside them hold their work in
/// other forms: all four streams are steps, none dropped.
#[test]
fn sections_of_one_worded_series_are_all_steps() {
    let (_, v, _) = json("first-sight-worded-siblings");
    let names: Vec<String> = (0..units(&v).len()).flat_map(|u| names(&v, u)).collect();
    assert_eq!(
        names,
        [
            "Stream A: Manual skills",
            "Stream B: Validation infrastructure",
            "Stream C: CI setup",
            "Stream D: Bulk generation"
        ],
        "{v}"
    );
}

/// `[Semana 1-2] Planejamento e Design` over indented lines, under each
/// `## Fase N`: the bracketed week labels are the steps, each phase's in
/// order, not the phases alone.
#[test]
fn bracketed_week_labels_are_the_steps() {
    let (_, v, _) = json("first-sight-bracketed-weeks");
    let names: Vec<String> = (0..units(&v).len()).flat_map(|u| names(&v, u)).collect();
    assert_eq!(
        names,
        [
            "Planejamento e Design",
            "Desenvolvimento dos Microserviços",
            "Testes e Refinamento"
        ],
        "{v}"
    );
}

/// An index table's `DependsOn` column (a field name, not words): each
/// environment waits for those it names, E002 and E003 side by side after
/// E001, E004 after both.
#[test]
fn a_dependency_column_written_as_a_field_name_orders_the_steps() {
    let (_, v, _) = json("first-sight-field-name-deps");
    assert_eq!(units(&v).len(), 4, "{v}");
    assert!(deps(&v, 1)[0].starts_with("E001"), "{v}");
    assert_eq!(deps(&v, 3).len(), 2, "{v}");
}

/// `tasks for AI agents to execute in parallel` in the plan's opening, over
/// phases of `### Agent N` sections: each phase's agents run at once, each
/// phase after the one before; a phase that says its agents do not run at
/// once stays one step.
#[test]
fn agents_the_opening_says_run_in_parallel_run_at_once_by_phase() {
    let (_, v, _) = json("first-sight-preamble-agents");
    assert_eq!(units(&v).len(), 5, "{v}");
    assert!(deps(&v, 0).is_empty() && deps(&v, 1).is_empty(), "{v}");
    assert_eq!(deps(&v, 2).len(), 2, "{v}");
    assert_eq!(deps(&v, 4).len(), 2, "{v}");
    assert_eq!(
        v["tally"]["outside"].as_array().map_or(0, Vec::len),
        0,
        "{v}"
    );
}

/// The third review's plans, where the first rules of this round misread
/// and the build before them read right: agents the opening says once ran
/// in parallel, or one agent's tests, run one after another; a check mark
/// the plan's key defines, or beside a status column, marks nothing done;
/// 決済 (payment) and `レビュー済` (reviewed) asides mark nothing done; a
/// sentence listing boxes is no legend, nor is `[-] done, needs review`; a
/// log of `[Week N]` lines is no steps; a summary list and its detailed
/// list are one series of steps; sections of prose, and options weighed,
/// beside a series are no steps; `三、已知风险` (known risks) is no step.
#[test]
fn the_third_review_plans_read_as_a_person_reads_them() {
    for fixture in [
        "first-sight-review3-agents-waited",
        "first-sight-review3-agent-tests-parallel",
    ] {
        let (_, v, _) = json(fixture);
        assert_eq!(units(&v).len(), 1, "{fixture}: {v}");
    }
    for fixture in [
        "first-sight-review3-key-legend-committed",
        "first-sight-review3-settlement-asides",
        "first-sight-review3-boxes-described",
        "first-sight-review3-legend-done-needs-review",
    ] {
        let (_, v, _) = json(fixture);
        assert!(done(&v, 0).iter().all(|d| !d), "{fixture}: {v}");
    }
    let (_, v, _) = json("first-sight-review3-key-mark-status-reopened");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
    let (_, v, _) = json("first-sight-review3-weekly-log");
    assert_eq!(names(&v, 0), ["Next steps"], "{v}");
    let (_, v, _) = json("first-sight-review3-summary-and-detail");
    assert_eq!(names(&v, 0).len(), 2, "{v}");
    let (_, v, _) = json("first-sight-review3-team-prose");
    assert_eq!(names(&v, 0), ["Team B: Cart", "Team C: Shipping"], "{v}");
    let (_, v, _) = json("first-sight-review3-rejected-options");
    assert_eq!(names(&v, 0).len(), 2, "{v}");
    let (_, v, _) = json("first-sight-review3-cjk-risks");
    assert_eq!(names(&v, 0), ["日志格式", "集中存储"], "{v}");
}

/// A changelog's numbered entries and a bug report's steps to reproduce
/// are no plan: refused, as before, not read as numbered instructions.
#[test]
fn numbered_lists_of_a_changelog_or_a_bug_report_are_refused() {
    for fixture in ["bad-review3-changelog", "bad-review3-bug-report"] {
        let (status, v, _) = json(fixture);
        assert_ne!(status, 0, "{fixture}: {v}");
    }
}

/// Task rows keyed by their own codes (`**R04**`) with a `Sprint` column
/// saying when each is scheduled (`19 (deps R01)`, `backlog`): refused at
/// the cell, with how to say it so it reads. (Skipping such a table read
/// backlog rows as work and lost what each waits for.)
#[test]
fn a_sprint_column_scheduling_coded_tasks_is_refused_with_a_hint() {
    let (status, _, out) = json("bad-scheduled-sprint-column");
    assert_ne!(status, 0, "{out}");
    assert!(out.contains("Target sprint"), "{out}");
}

/// `# Schritte:` (steps) holding the plan's only checklist names a list of
/// steps: each item is one, and an item that makes a prompt template is a
/// step like the others, not a template section left out.
#[test]
fn a_list_named_steps_holds_one_step_per_item() {
    let (_, v, _) = json("first-sight-steps-list");
    assert_eq!(names(&v, 0).len(), 4, "{v}");
    assert!(names(&v, 0)[2].starts_with("Prompt-Template"), "{v}");
}

/// `Wave 1 PRs (R01→R02→R03) ship sequentially`: a chain of arrows
/// between units makes each wait for the one before it, over a table
/// whose dependency cells name none.
#[test]
fn a_chain_of_arrows_between_units_orders_them() {
    let (_, v, _) = json("first-sight-arrow-chain");
    assert!(deps(&v, 0).is_empty(), "{v}");
    assert!(deps(&v, 1)[0].contains("R01"), "{v}");
    assert!(deps(&v, 2)[0].contains("R02"), "{v}");
}

/// An arrow chain offered as an option or beside work said to be
/// independent (`Stories complete independently, merge in priority order
/// (US1 → US2)`) orders nothing.
#[test]
fn an_arrow_chain_offered_beside_independent_work_orders_nothing() {
    let plan = "# Remediation plan\n\n## Wave 1\n\n| Task | Title | Deps |\n| --- | --- | --- |\n| **R01** | Tenant fix | — |\n| **R02** | Dedup fix | — |\n| **R03** | Doc cleanup | — |\n\n## Sequencing\n\n1. The three PRs are independent; merge in priority order (R01→R02→R03).\n";
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), plan).expect("write plan");
    let out = crate::common::run(dir.path(), &["plan", "--format", "json"]);
    let v: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(units(&v).len(), 3, "{v}");
    for u in 0..3 {
        assert!(deps(&v, u).is_empty(), "{v}");
    }
}

/// `Implementar nesta ordem` (implement in this order) over a table with a
/// dependency column: the rows run in the order written, each after the
/// row above as well as what its cell names; `contacts` does not run
/// beside `file-storage`.
#[test]
fn a_table_introduced_as_an_order_runs_its_rows_in_order() {
    let (_, v, _) = json("first-sight-table-in-order");
    assert_eq!(units(&v).len(), 4, "{v}");
    assert!(deps(&v, 3).iter().any(|d| d == "file-storage"), "{v}");
}

/// `### ✅ 1.1` to `### ✅ 1.3` under one phase, where the steps of the
/// other phases open with pictographs that mark nothing (`### 🌐 2.1`,
/// `### 🔐 2.2`): the ✅ is the plan's decoration too, and a step it opens
/// is not done (1.2 and 1.3 hold no box to say otherwise).
#[test]
fn a_check_mark_decorating_every_step_of_a_phase_marks_nothing_done() {
    let (_, v, _) = json("first-sight-decorated-check-steps");
    assert_eq!(names(&v, 0).len(), 6, "{v}");
    assert!(done(&v, 0).iter().all(|d| !d), "{v}");
}

/// A mermaid architecture picture (`UI[React UI] --> API[api]`) one of
/// whose nodes is named like a unit draws no order of the units: the plan
/// reads, with the order its table gives.
#[test]
fn an_architecture_picture_naming_one_unit_orders_nothing() {
    let (status, v, out) = json("first-sight-architecture-mermaid");
    assert_eq!(status, 0, "{out}");
    assert!(deps(&v, 0).is_empty(), "{v}");
    assert_eq!(deps(&v, 1), ["api"], "{v}");
}

/// A list of the pages to fix and a progress list, each restating the
/// phases under headings of its own (`### Phase 1: Cart page`), beside the
/// section that breaks each phase into its steps: one unit of the steps,
/// not three units doing the same work.
#[test]
fn sections_restating_the_phases_are_no_units_of_their_own() {
    let (_, v, _) = json("first-sight-restating-sections");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Rename the totals section",
            "Remove dead code",
            "Show the fee"
        ]
    );
}

/// `### タスク1: …` (task 1) headings beside `### Phase 1（即座に実施）`
/// sections whose numbered items only name those tasks' parts (`タスク1.1:
/// …`), in their order and marking nothing: the tasks are the steps, read
/// by their word in the plan's language, and the phases a schedule of
/// them. (A schedule that marks work done or reorders it is read as the
/// steps, below.)
#[test]
fn phases_scheduling_the_tasks_of_another_word_are_no_steps() {
    let (_, v, _) = json("first-sight-task-word-schedule");
    assert_eq!(
        names(&v, 0),
        [
            "登録スクリプトの作成",
            "取得機能の実装",
            "ローテーション機能の実装"
        ]
    );
    assert_eq!(done(&v, 0), [true, true, false]);
}

/// `## Tarea 1: Modelo de datos`: the plan's word for a task names the
/// step, and the step's name is what follows it.
#[test]
fn a_task_word_of_another_language_names_the_step() {
    let (_, v, _) = json("first-sight-task-word");
    assert_eq!(names(&v, 0), ["Modelo de datos", "API", "Interfaz"]);
}

/// `### Ticket Files (Execute in Order)` over a bulleted list of tickets,
/// beside bold numbered lists that describe the migration and the
/// operators' duties: the ordered list is the steps. A status table of
/// `Day 1`, `Day 2` rows counts days, and marks no step done.
#[test]
fn a_bulleted_list_under_a_heading_naming_its_order_is_the_steps() {
    let (_, v, _) = json("first-sight-ordered-bullets");
    assert_eq!(units(&v).len(), 1, "{v}");
    let names = names(&v, 0);
    assert_eq!(names.len(), 4, "{v}");
    assert!(names[0].starts_with("00_PRE_FLIGHT_CHECK.md"), "{v}");
    assert!(done(&v, 0).iter().all(|d| !d), "{v}");
}

/// A table of work with no status column whose `Risk` cells say
/// `**DONE 2026-05-08**` or `shipped 2026-05-09 / gate pending`: a done
/// word with its date marks the row done; `PREP DONE …` does not.
#[test]
fn a_dated_done_word_in_a_rows_cell_marks_it_done() {
    let (_, v, _) = json("first-sight-dated-done-cell");
    assert_eq!(done(&v, 0), [false, true, false, true, false], "{v}");
}

/// `## PHASE 1 CHECKPOINT` and `## PHASE 2 CHECKPOINT` beside the phases
/// holding the stages: the two no longer collide as one unit `CHECKPOINT`
/// (which refused the plan as a unit defined twice, in a cycle); each
/// keeps its whole heading. (A checkpoint is left a step: plans name real
/// work so, `## Phase 2: Checkpoint` a staging rehearsal.)
#[test]
fn checkpoint_sections_between_phases_keep_their_whole_names() {
    let (status, v, out) = json("first-sight-checkpoint-sections");
    assert_eq!(status, 0, "{out}");
    assert_eq!(
        units(&v),
        [
            "HARDENING",
            "PHASE 1 CHECKPOINT",
            "OPERATIONAL DEPTH",
            "PHASE 2 CHECKPOINT"
        ],
        "{v}"
    );
}

/// A table of issues numbered by a bare `#` (`| 1 | God class in main.py
/// | High | Open |`) beside `### Sprint 1 — Architecture decoupling`: its
/// numbers are the issues', not the sprints'. No row becomes a sprint and
/// none marks one.
#[test]
fn a_table_numbering_issues_by_a_bare_hash_indexes_no_sprint() {
    let (_, v, _) = json("first-sight-numbered-issues-table");
    assert_eq!(
        names(&v, 0),
        [
            "Architecture decoupling",
            "Engine hardening",
            "UI robustness"
        ]
    );
    assert!(done(&v, 0).iter().all(|d| !d), "{v}");
}

/// `| 优先级 | 里程碑 | 状态 |` (priority, milestone, status) over rows
/// naming `Phase 1.1 — Runner Recovery` in the milestone column: a status
/// table indexing the phases by a column after the first.
#[test]
fn a_status_table_naming_the_steps_in_a_later_column_marks_them() {
    let (_, v, _) = json("first-sight-status-table-named-column");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// `## Implementation Roadmap` holding `Phase 0: Policy + Schema`, each on
/// a line of its own over a list, in a plan none of whose headings names a
/// step: the label lines are the steps. (The plan's plain sections,
/// `## Principles` and `## Tooling Map`, were read as its steps.)
#[test]
fn step_label_lines_in_a_roadmap_section_are_the_steps() {
    let (_, v, _) = json("first-sight-step-labels-in-roadmap");
    assert_eq!(
        names(&v, 0),
        ["Policy + Schema", "Foundations", "Comms & Docs"]
    );
}

/// A priority schedule that marks its first phase done and runs `Task 3.1`
/// before `Task 1.1` (it blocks the release) says what the tasks do not:
/// it stays the plan's steps, done mark and order kept.
#[test]
fn a_schedule_that_marks_or_reorders_work_stays_the_steps() {
    let plan = "# Hardening backlog\n\n## Schedule\n\n### Phase 1 (do first — blocks the release) ✅\n1. Task 3.1: Rotate leaked API keys\n2. Task 2.2: Patch the SSRF in the image proxy\n\n### Phase 2 (this sprint)\n1. Task 1.1: Add rate limiting to login\n2. Task 2.1: CSP headers\n\n### Phase 3 (later)\n1. Task 1.2: Audit log retention\n\n## Tasks\n\n### Task 1: Auth\n- 1.1 Add rate limiting to login\n- 1.2 Audit log retention\n\n### Task 2: Web\n- 2.1 CSP headers\n- 2.2 Patch the SSRF in the image proxy\n\n### Task 3: Secrets\n- 3.1 Rotate leaked API keys\n";
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("EXECUTION_PLAN.md"), plan).expect("write plan");
    let out = crate::common::run(dir.path(), &["plan", "--format", "json"]);
    let v: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
}

/// The plans of this session's review, each read as a person reads it
/// (the looser first forms of the rules misread them): a finished phase
/// whose steps all open with ✅ stays done; two units of the same phases,
/// one written as `API: …` lines, both stay; a schedule that marks and
/// reorders work stays the steps; bullets under `## Milestones` are no
/// steps; `Wk 1` under `Week` is week 1; a dated cell beside an open one
/// marks nothing, nor does `Done …, but reverted`; `## 3. Checkpoint and
/// resume` is work; `(implemented in Rust)` is no done mark; a `#` status
/// table of short names (`API`) keeps its marks; a task table's `Phase`
/// column marks no phase.
#[test]
fn the_reviews_plans_read_as_a_person_reads_them() {
    let cases: &[(&str, &[bool])] = &[
        ("first-sight-review4-r01a", &[true, false]),
        ("first-sight-review4-r05a", &[true, false, false]),
        ("first-sight-review4-r06d", &[false, false, false, false]),
        (
            "first-sight-review4-r07d",
            &[true, true, false, false, false],
        ),
        ("first-sight-review4-r08a", &[true, false, false, false]),
        ("first-sight-review4-r08c", &[false, false, false]),
        ("first-sight-review4-r09a", &[false, false, false, false]),
        ("first-sight-review4-r10a", &[false, false, false]),
        (
            "first-sight-review4-r11a",
            &[true, true, false, false, false],
        ),
        ("first-sight-review4-r12a", &[false, false, false]),
    ];
    for (fixture, marks) in cases {
        let (status, v, out) = json(fixture);
        assert_eq!(status, 0, "{fixture}: {out}");
        assert_eq!(done(&v, 0), *marks, "{fixture}: {v}");
    }
    let (_, v, _) = json("first-sight-review4-r03a");
    assert_eq!(units(&v), ["Backend", "Frontend"], "{v}");
    assert!(
        names(&v, 0)[2] == "Testing" && done(&v, 1).iter().all(|d| !d),
        "{v}"
    );
    // A graph through gate nodes (`Infra --> review{Security review} -->
    // Backend`) orders the units: its gates are refused by name, not
    // dropped with the order they carry.
    let (status, _, out) = json("bad-review4-gated-graph");
    assert_ne!(status, 0, "{out}");
    assert!(out.contains("Kickoff"), "{out}");
}

/// A phase overview table (`| 1 | Repository Restructure | ✅ Complete |`)
/// over phases whose steps are `1.1`, `1.2`: a row names a phase, not a
/// step of its own, and adds no sprint beside the phase's steps (which
/// read the same work twice).
#[test]
fn status_rows_naming_phases_of_steps_add_no_sprint() {
    let (_, v, _) = json("first-sight-status-rows-over-groups");
    assert_eq!(
        names(&v, 0),
        [
            "Terraform modules",
            "Base charts",
            "OPNSense VM",
            "VLANs",
            "Storage"
        ]
    );
}

/// `### 1. Initialise the database` holding only its command, before the
/// checklist groups `### 2.` to `### 6.` of one numbered series: the
/// series' first step, not dropped without a word.
#[test]
fn a_series_first_section_holding_only_a_command_is_its_first_step() {
    let (_, v, _) = json("first-sight-series-first-step-command");
    let names = names(&v, 0);
    assert_eq!(names.len(), 6, "{v}");
    assert_eq!(names[0], "Initialise the database");
}

/// A box holding a state symbol is a box: `[🔗]` (the legend's "pending
/// external infra") is open, so a stage marked ✅ over it is not done;
/// `[✓]` and `[√]` are ticked; a category drawn in a box (`[🐛]`) and a box
/// in a command are left as written.
#[test]
fn a_box_holding_a_symbol_is_open_or_ticked_by_its_symbol() {
    let (status, v, out) = json("first-sight-symbol-boxes");
    assert_eq!(status, 0, "{out}");
    assert_eq!(done(&v, 0), [false, true, true, false, true], "{v}");
    let s = sprint(&v, 0, 0);
    assert!(
        s["tasks"].as_array().is_some_and(|t| t.len() == 4),
        "the open boxes are the stage's tasks: {s}"
    );
}

/// `- **Blocker Resolved:** …` or `- **Deliverable:** …` among lines
/// marked done at their end is a field of the phase, not a line of work
/// left open: the phase marked `✅ 100% Complete` stays done; a plain line
/// without the mark, or `- **TODO:** …`, still holds its phase open.
#[test]
fn a_field_line_among_lines_marked_done_is_no_open_work() {
    let (_, v, _) = json("first-sight-field-lines-among-marks");
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
}

/// `## 验收检查清单` over `### P0 验收` (the acceptance checklist, as
/// `## Acceptance Checklist` over `### P0 Acceptance`): checks of the
/// plan, not sprints to dispatch.
#[test]
fn acceptance_sections_in_chinese_are_no_sprints() {
    let (_, v, _) = json("first-sight-cjk-acceptance");
    let names = names(&v, 0);
    assert_eq!(names.len(), 4, "{v}");
    // Goods-receipt inspection (`验收管理`) is a feature: work.
    assert_eq!(names[3], "P1-2 验收管理", "{names:?}");
    assert!(names[..3].iter().all(|n| !n.contains("验收")), "{names:?}");
}

/// `| Phase | 이름 | 상태 |`: a phase table whose name column is written
/// in the plan's language is the phases, as `| Phase | Name | Status |`
/// is; the numbered how-to sections below it are not steps.
#[test]
fn a_phase_table_with_its_name_column_in_korean_is_the_phases() {
    let (_, v, _) = json("first-sight-localized-name-column");
    assert_eq!(
        names(&v, 0),
        [
            "개발 환경",
            "프로젝트 초기화",
            "인증 시스템",
            "세션 관리 API"
        ]
    );
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
}

/// A mark after a phase's name that goes on to say what is still open
/// (`✅ backend done, docs pending`, `✅ 后端完成，前端待开发`) marks a part:
/// the phase stays open; any other words after the mark (`✅ 完了`, `✅
/// 実装完了`, `✅ Completed <date>`) say how it was done, and it is.
#[test]
fn a_mark_saying_what_is_still_open_leaves_the_phase_open() {
    let (_, v, _) = json("first-sight-qualified-mark");
    assert_eq!(done(&v, 0), [true, true, false, false, true], "{v}");
}

/// A title naming the span of its milestones (`# M0 → M3 里程碑`) is no
/// milestone M0: the `## M0` section is, and is not lost beside it.
#[test]
fn a_title_naming_a_span_of_milestones_drops_none_of_them() {
    let (_, v, _) = json("first-sight-title-span");
    assert_eq!(sprint_ids(&v, 0), ["0", "1", "2", "3"], "{v}");
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
}

/// `| Фаза | Название | Статус |`: a status table of phases in the plan's
/// language marks the phases done, as `| Phase | Name | Status |` does,
/// and its phase 0, headed nowhere else, is a step too.
#[test]
fn a_status_table_in_russian_marks_its_phases() {
    let (_, v, _) = json("first-sight-localized-status-table");
    assert_eq!(sprint_ids(&v, 0), ["0", "1", "2", "3"], "{v}");
    assert_eq!(done(&v, 0), [true, true, true, false], "{v}");
}

/// An execution-order table in another language (`| 阶段 | 内容 | 状态 |`)
/// whose stage 1 is option C marks option C, not the sprint numbered 1:
/// its rows are held to the names they carry.
#[test]
fn an_order_table_numbering_options_marks_no_sprint_by_number() {
    let (_, v, _) = json("first-sight-order-table-other-numbers");
    assert_eq!(done(&v, 0), [false, false, true], "{v}");
}

/// A table of work whose steps run over several rows (`| 0 | Read the
/// handbook |`, `| 0 | Draft the charter |`) is read once, as its steps:
/// its rows add no step of their own beside them.
#[test]
fn a_table_of_work_on_grouped_rows_adds_no_row_as_a_step() {
    let (_, v, _) = json("first-sight-grouped-work-table");
    assert_eq!(names(&v, 0), ["Stage 0", "Stage 1", "Stage 2"], "{v}");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
}

/// A table of risks keyed by phase (`| Phase | Risk | Status |`, `| 1 |
/// Server delivery delayed | ✅ Resolved |`) says what became of the
/// risk, not of the phase: no phase is done by it.
#[test]
fn a_risk_table_marks_no_phase_done() {
    let (_, v, _) = json("first-sight-risk-table");
    assert_eq!(done(&v, 0), [false, false, false], "{v}");
}

/// Plans a review wrote against this round's first rules, each read as
/// before them: `✅ 実装完了` marks its phase; `[√]` is a tick; a totals
/// row leaves a status table an index; a label column (`| 阶段 | 里程碑
/// |`) leaves the named column the key; `## 4. 验收上线` is work; `Phase 1
/// → 100 users` and `M1 – M365 integration` are single steps; a category
/// drawn in a box (`[🐛]`) is no open box.
#[test]
fn the_reviews_plans_read_as_before_this_rounds_rules() {
    let cases: &[(&str, &[bool])] = &[
        ("first-sight-review5-p02", &[true, true, false]),
        ("first-sight-review5-p10", &[true, false, false]),
        ("first-sight-review5-p40", &[true, true, false, false]),
        ("first-sight-review5-p49", &[true, true, false]),
        ("first-sight-review5-p24", &[false, false, false, false]),
        ("first-sight-review5-p69", &[true, false, false]),
        ("first-sight-review5-p52", &[true, false, false]),
        ("first-sight-review5-p78", &[true, false]),
    ];
    for (fixture, marks) in cases {
        let (status, v, out) = json(fixture);
        assert_eq!(status, 0, "{fixture}: {out}");
        assert_eq!(done(&v, 0), *marks, "{fixture}: {v}");
    }
    let (_, v, _) = json("first-sight-review5-p24");
    assert_eq!(names(&v, 0)[3], "验收上线", "{v}");
}

fn guessed(v: &Value, code: &str) -> bool {
    v["guesses"]
        .as_array()
        .is_some_and(|g| g.iter().any(|g| g["code"] == code))
}

/// `## ✅ Phase 1 — Capture (Complete)` beside `## 🚀 Phase 3` and `## 🧠
/// Phase 4`: the ✅ may be an icon among icons, but the words still say
/// the phase is complete.
#[test]
fn a_heading_whose_words_say_complete_is_done_among_icons() {
    let (_, v, _) = json("first-sight-icon-and-words");
    assert_eq!(done(&v, 0), [true, true, true, true, false], "{v}");
}

/// A phase marked done that holds a `### Delivered` list and a numbered
/// sub-phase stays a step (done), and its sub-phase is done by its mark; a
/// line put off (`⏳ … (deferred — …)`) leaves no open work behind.
#[test]
fn a_done_phase_holding_a_sub_phase_is_kept_and_marks_it_done() {
    let (_, v, _) = json("first-sight-done-container");
    assert_eq!(sprint_ids(&v, 0), ["1", "1.1", "2", "2.1", "3"], "{v}");
    assert_eq!(done(&v, 0), [true, true, true, true, false], "{v}");
    assert!(!guessed(&v, "reading::open_lines"), "{v}");
}

/// `| Not started | Work in progress | Done |` with an `X` in one column:
/// each row's state is its mark's column; a sprint whose rows are all
/// under `Done` is done, one with a row elsewhere is not, and the rows
/// are the sprints' tasks, not steps of their own.
#[test]
fn a_board_table_marks_rows_by_their_column() {
    let (_, v, _) = json("first-sight-board-columns");
    assert_eq!(sprint_ids(&v, 0), ["0", "1", "2"], "{v}");
    assert_eq!(done(&v, 0), [true, false, true], "{v}");
    let tally = &v["tally"];
    assert_eq!(tally["in_sprints"], 8, "{tally}");
}

/// `- **描述**：…` with a full-width colon is a field of its task card, not
/// an open line of work under a card marked ✅.
#[test]
fn full_width_colon_fields_are_no_open_work() {
    let (_, v, _) = json("first-sight-fullwidth-fields");
    assert_eq!(done(&v, 0), [true, true], "{v}");
    assert_eq!(done(&v, 1), [false], "{v}");
    assert!(!guessed(&v, "reading::open_lines"), "{v}");
}

/// `# Phase 9 Roadmap` over `## Phase Timeline` holding `### Phase 9.0` …
/// `### Phase 9.3`: the sub-phases side by side are the steps, not notes
/// about phase 9; `### Phase 9.2-9.3` under `## Success Metrics` is about
/// two of them, not a step.
#[test]
fn sub_phases_side_by_side_are_the_steps_of_their_phase() {
    let (_, v, _) = json("first-sight-subphase-series");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["9.0", "9.1", "9.2", "9.3"], "{v}");
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
}

/// `**Execution Order:** 1 > 2 > 3 > 4` is the order of the phases, over
/// `Depends on` lines that would let 3 and 4 run side by side; an index
/// entry struck through and marked `ABANDONED` is neither a step nor open
/// work.
#[test]
fn a_chain_over_every_step_is_the_order_and_an_abandoned_entry_no_step() {
    let (_, v, _) = json("first-sight-chain-order");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "4"], "{v}");
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
}

/// A numbered task list (`- [ ] 2. Send reminders` over `2.1`, `2.2`) is
/// the plan's steps; numbered bold items under `## Critical Blockers
/// (Priority Order)` point into it and are not steps of their own.
#[test]
fn a_numbered_task_list_outranks_bold_items_pointing_into_it() {
    let (_, v, _) = json("first-sight-blockers-over-tasks");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
    assert!(!guessed(&v, "reading::bold_items"), "{v}");
}

/// `## Post-Launch: Maintenance & Growth` over `### Ongoing Tasks` is
/// upkeep after the plan's end: no step, and its boxes are not work left
/// outside every sprint.
#[test]
fn upkeep_after_launch_is_no_step() {
    let (_, v, _) = json("first-sight-post-launch");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
}

/// `验证闭环 (Verification Loop) - ✅ 已完成`: the dash that set the mark
/// apart goes with it, and the name is the words before it.
#[test]
fn the_dash_before_a_done_mark_is_no_part_of_the_name() {
    let (_, v, _) = json("first-sight-dash-done");
    assert_eq!(
        names(&v, 0),
        [
            "基础设施（当前）",
            "验证闭环 (Verification Loop)",
            "规划与编排"
        ],
        "{v}"
    );
    assert_eq!(done(&v, 0), [false, true, true], "{v}");
}

/// `User stories can then proceed in priority order (P1 → P2 → P3)`: each
/// story of a priority waits for every story of a higher one, over story
/// lines that let them all start after the foundation.
#[test]
fn stories_proceed_by_their_priorities() {
    let (_, v, _) = json("first-sight-priority-tiers");
    assert_eq!(deps(&v, 2), ["Phase 2"], "{v}");
    assert_eq!(deps(&v, 3), ["Phase 2"], "{v}");
    assert_eq!(deps(&v, 4), ["Phase 2", "Phase 3", "Phase 4"], "{v}");
    assert_eq!(
        deps(&v, 5),
        ["Phase 2", "Phase 3", "Phase 4", "Phase 5"],
        "{v}"
    );
}

/// `## Review Hotfix` between `## Phase 2` and `## Phase 3`, written as
/// the phases are (a list of task boxes): a step inserted there, after
/// phase 2, not work left outside every step; `## Notes` is not one.
#[test]
fn a_section_written_as_the_steps_between_two_of_them_is_a_step() {
    let (_, v, _) = json("first-sight-inserted-section");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "2a", "3"], "{v}");
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
}

/// What the review of this round's rules found, each read as a person
/// reads it: a line naming a state in capitals (`Add CANCELLED state`) is
/// open work, not a line dropped; a flat numbered checklist of acceptance
/// checks does not displace numbered bold steps; a completion date stands
/// over a box under `Known issues (… not blocking)`.
#[test]
fn the_rounds_rules_keep_to_their_cases() {
    let (_, v, _) = json("first-sight-review5-state-word");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
    let (_, v, _) = json("first-sight-review5-acceptance-numbers");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "4"], "{v}");
    assert_eq!(
        names(&v, 0)[0],
        "Provision new cluster — Terraform module for the PG16 cluster",
        "{v}"
    );
    let (_, v, _) = json("first-sight-review5-known-issues");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// What the second review found: `## Known Issues` between two phases,
/// its boxes carrying the phases' task codes (`T900`), is tracked, not a
/// step inserted there; tasks opening with a number and a dash (`2-tier
/// cache`) are no roadmap plan lines, so a dated tick still stands over a
/// stale box among them.
#[test]
fn the_rounds_rules_keep_to_their_cases_after_the_second_review() {
    let (_, v, _) = json("first-sight-review6-known-issues");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    let (_, v, _) = json("first-sight-review6-dated-digits");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// `- [x] Step 2 (time zone): migration run` beside `- [ ] Step 2: check
/// in the browser` in a list of what is pending: the step's leftovers, one
/// still open, so step 2 is not done although one of them is ticked and
/// its own boxes are.
#[test]
fn a_step_named_by_a_ticked_and_an_open_leftover_is_open() {
    let (_, v, _) = json("first-sight-split-leftovers");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
}

/// `**Зависит от**: шаги 2, 3` under `## Шаг 4`: dependency lines naming
/// steps by the plan's own word in Russian are its order, as `Depends on:
/// steps 2, 3` is.
#[test]
fn dependency_lines_naming_steps_in_russian_are_the_order() {
    let (_, v, _) = json("first-sight-russian-depends");
    assert_eq!(units(&v).len(), 5, "{v}");
    assert_eq!(deps(&v, 1), ["Удаление старого кода"], "{v}");
    assert_eq!(deps(&v, 2), ["Удаление старого кода"], "{v}");
    assert_eq!(
        deps(&v, 3),
        ["Новые модели", "Переименование и тексты"],
        "{v}"
    );
}

/// `### M3. Personalization` detailed among the modules, and named again
/// in `## 2. Out of scope (explicitly excluded)`: not a step to send.
#[test]
fn a_step_named_in_an_out_of_scope_section_is_not_sent() {
    let (_, v, _) = json("first-sight-left-out");
    assert_eq!(sprint_ids(&v, 0), ["0", "1", "2"], "{v}");
}

/// `### Phase 5-6 完成标准` under `## Acceptance Criteria`, after phases 5
/// and 6 are headed: the two phases' acceptance, not one more step.
#[test]
fn a_heading_spanning_two_steps_headed_before_it_is_no_step() {
    let (_, v, _) = json("first-sight-pair-criteria");
    assert_eq!(
        sprint_ids(&v, 0),
        ["1.1", "1.2", "2.1", "3.1", "4.1", "5.1", "6.1"],
        "{v}"
    );
}

/// `## Category 2` after `## Category 1`, each over the same `| ID | Task |
/// Status |` columns: the tables are one list of steps, none dropped; a
/// later table repeating their ids (`## Overall Progress`) adds nothing.
#[test]
fn tables_with_the_same_columns_under_sibling_headings_are_one_list() {
    let (_, v, _) = json("first-sight-category-tables");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "4", "5"], "{v}");
    assert_eq!(done(&v, 0), [true, false, false, false, false], "{v}");
}

/// What the review of this round's rules found, each read as a person
/// reads it: `- Phase 2 polish items … go to the backlog` under `## Not in
/// scope` leaves phase 2 in; `## Sprint 1·2 통합 QA` names two sprints, not
/// sprint 1 twice; an open `Step 2: flaky test` under `## Known issues`
/// does not reopen a step its status list ticks; `## Sprint 2-3
/// carry-over` beside the sprints is a step of its own.
#[test]
fn the_rounds_rules_keep_to_their_cases_after_the_third_review() {
    let (_, v, _) = json("first-sight-review7-out-of-scope-part");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    let (status, v, _) = json("first-sight-review7-dotted-pair");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    let (_, v, _) = json("first-sight-review7-known-issue");
    assert_eq!(done(&v, 0), [true, true, true], "{v}");
    let (_, v, _) = json("first-sight-review7-carry-over");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "2-3", "4"], "{v}");
}

/// What the second review found: a table after `Deferred to the next
/// release (do not start):` is not more of the steps' table; `| Phase 2 |
/// Sync of attachments |` under `## Out of scope` leaves phase 2 in (the
/// label alone heads what of it is left out); `- [ ] Step 2: started
/// backfill` above `- [x] Step 2: backfill finished` in a log does not
/// reopen step 2.
#[test]
fn the_rounds_rules_keep_to_their_cases_after_the_fourth_review() {
    let (_, v, _) = json("first-sight-review8-deferred-table");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    let (_, v, _) = json("first-sight-review8-bare-label");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    let (_, v, _) = json("first-sight-review8-log-order");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// Waves that name an index's rows by number (`### Wave 2: Services
/// (Tasks 02, 03, 04 — parallel)`, a tree under `Wave 2 (parallel, after
/// Wave 1)`) order the rows, over a dependency column left blank (`-` all
/// down): each row waits for the wave before it, and the rows of a wave
/// not said to run at once run one after another.
#[test]
fn waves_naming_rows_order_them_over_a_blank_dependency_column() {
    let (_, v, _) = json("first-sight-wave-index");
    let names = units(&v);
    assert_eq!(names.len(), 6, "{v}");
    assert!(deps(&v, 0).is_empty(), "{v}");
    for k in 1..4 {
        assert_eq!(deps(&v, k), [names[0].clone()], "{v}");
    }
    assert_eq!(deps(&v, 4), names[1..4].to_vec(), "{v}");
    assert_eq!(deps(&v, 5), names[1..5].to_vec(), "{v}");
}

/// `#### Bugs` under `### v1.1`, each holding boxes: the bugs are part of
/// the release, which is open while any of them is.
#[test]
fn a_checklist_group_inside_another_is_part_of_it() {
    let (_, v, _) = json("first-sight-release-bug-groups");
    assert_eq!(names(&v, 0).len(), 3, "{v}");
    assert_eq!(done(&v, 0), [false, false, true], "{v}");
}

/// A progress checklist naming parts of a phase (`Phase 1-1: Module
/// layout`) that the phase's own section holds (`#### 1-1. Module layout`)
/// lists the phase's work, not steps of their own: the phase is one
/// sprint, open while a part is.
#[test]
fn index_entries_naming_parts_a_phase_holds_are_that_phase() {
    let (_, v, _) = json("first-sight-index-parts");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    assert_eq!(done(&v, 0), [false, false, false], "{v}");
}

/// A phase whose own opening words say its agents' sections run at once
/// (`These can be built in parallel.` over `#### Agent1: …`) runs them
/// at once, after the phase before and before the phase after.
#[test]
fn a_phase_saying_so_in_its_opening_words_runs_its_agents_at_once() {
    let (_, v, _) = json("first-sight-phase-opening-agents");
    let names = units(&v);
    assert_eq!(names.len(), 5, "{v}");
    for k in 1..4 {
        assert_eq!(deps(&v, k), [names[0].clone()], "{v}");
    }
    assert_eq!(deps(&v, 4), names[1..4].to_vec(), "{v}");
}

/// Milestones listed after the stages (`### M2: Data in sync`, done, while
/// `### Stage 3: Sync service` is in progress) are checkpoints of that
/// work: the stages are the sprints, with their own status.
#[test]
fn milestones_after_the_stages_are_checkpoints_not_the_work() {
    let (_, v, _) = json("first-sight-closing-milestones");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "4"], "{v}");
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
}

/// What the review of this round's rules found, each read as a person
/// reads it: a dependency column naming rows is their order over a rough
/// wave tree; waves inside each phase order that phase's items, not the
/// phases; `sends chunks in parallel` in a phase's opening is about the
/// product, not its agents; milestones holding every box are the work
/// after phase summaries; an index ticking two of a phase's three parts
/// leaves it open; features under a release stay steps of their own.
#[test]
fn the_rounds_rules_keep_to_their_cases_after_the_fifth_review() {
    let (_, v, _) = json("first-sight-review9-table-deps");
    let names = units(&v);
    assert_eq!(names.len(), 5, "{v}");
    assert_eq!(deps(&v, 2), [names[1].clone()], "{v}");
    assert_eq!(deps(&v, 4), [names[2].clone(), names[3].clone()], "{v}");
    let (_, v, _) = json("first-sight-review9-phase-local-waves");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    let (_, v, _) = json("first-sight-review9-feature-parallel");
    assert_eq!(units(&v).len(), 1, "{v}");
    let (_, v, _) = json("first-sight-review9-milestones-real");
    assert_eq!(sprint_ids(&v, 0).len(), 4, "{v}");
    assert!(
        v["tally"]["outside"].as_array().is_none_or(Vec::is_empty),
        "{v}"
    );
    let (_, v, _) = json("first-sight-review9-partial-index");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    assert_eq!(done(&v, 0), [false, false, false], "{v}");
    let (_, v, _) = json("first-sight-review9-release-features");
    assert_eq!(sprint_ids(&v, 0).len(), 5, "{v}");
}

/// A Gantt chart whose rows name the sprints (`Sprint 1 - Research :done,
/// s1, …`) marks the ones tagged `done`; a row `active` or untagged says
/// nothing, so sprint 3 stays open.
#[test]
fn a_gantt_row_tagged_done_marks_the_sprint_it_names() {
    let (_, v, _) = json("first-sight-gantt-marks");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// spec-kit's `Phase Dependencies` list naming phases in the plural
/// (`Depends on Phases 3 and 4`, `in parallel with Phases 3-5`): each
/// phase waits for what its item names, and two phases the list leaves
/// unordered run at once only where the plan offers it in words naming
/// them; any other pair keeps the written order. Before, the plural was
/// not read and the whole list was ignored.
#[test]
fn a_phase_list_runs_phases_at_once_only_where_the_plan_offers_it() {
    let (status, v, _) = json("first-sight-phase-list-offers");
    assert_eq!(status, 0, "{v}");
    assert_eq!(v["detection"]["dependencies"], "graph", "{v}");
    let names = units(&v);
    assert_eq!(names.len(), 8, "{v}");
    assert_eq!(deps(&v, 2), ["Phase 2"], "{v}");
    // `Phase 4 … (can run in parallel with Phase 3)`.
    assert_eq!(deps(&v, 3), ["Phase 2"], "{v}");
    // Phase 5 names Phase 4; nothing offers it beside Phase 3.
    assert_eq!(deps(&v, 4), ["Phase 3", "Phase 4"], "{v}");
    // `Phase 6 … (can run in parallel with Phases 3-5)`.
    assert_eq!(deps(&v, 5), ["Phase 2"], "{v}");
    // `Depends on Phases 3 and 4`; nothing offers it beside 5 or 6.
    assert_eq!(
        deps(&v, 6),
        ["Phase 3", "Phase 4", "Phase 5", "Phase 6"],
        "{v}"
    );
    assert_eq!(done(&v, 0), [true], "{v}");
}

/// A plan titled as one phase (`# Phase 4a: Narrative store`) whose
/// sections hold a worded series (`### Sub-phase A: Store`, `B`, `C`),
/// each listing work: the series are its steps, done one by one; the
/// plan's `Definition of Done` is the last step's criteria.
#[test]
fn a_phase_titled_plan_runs_its_sub_phases() {
    let (status, v, _) = json("first-sight-titled-subphases");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0).len(), 3, "{v}");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
    assert_eq!(v["tally"]["criteria"], 2, "{v}");
}

/// A phase whose heading says its agents work at once, where one agent's
/// section names another (`**Partially blocked by**: Agent 1`): every
/// agent is a unit after the phase before, and the one that names another
/// waits for it too. Before, the phase was one sprint.
#[test]
fn agents_at_once_wait_for_the_agents_they_name() {
    let (status, v, _) = json("first-sight-agents-name-agents");
    assert_eq!(status, 0, "{v}");
    let names = units(&v);
    assert_eq!(names.len(), 5, "{v}");
    assert_eq!(deps(&v, 1), [names[0].clone()], "{v}");
    assert_eq!(deps(&v, 2), [names[0].clone()], "{v}");
    assert_eq!(deps(&v, 3), [names[0].clone(), names[1].clone()], "{v}");
    assert_eq!(deps(&v, 4), [names[0].clone()], "{v}");
}

/// `## Sub-phase B: Billing` holding numbered items among `Sub-phase A`
/// and `C` holding boxes: a step of the same series, not dropped.
#[test]
fn a_hyphenated_series_keeps_its_unboxed_step() {
    let (status, v, _) = json("first-sight-hyphen-series");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0).len(), 3, "{v}");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
}

/// A priority list of phases (`### Phase 2 (done): Teams app ✅`) before
/// detail sections restating some of them (`## Phase 2: Teams app service
/// layer`): the detail is the sprint, it runs where the list places it
/// (Phase 2 after Phase 1, not after Phase 4), and the list's mark says it
/// is done while neither holds an open line. Before, Phase 2 ran after
/// Phase 4 and was done again.
#[test]
fn a_restating_list_places_and_marks_its_phases() {
    let (status, v, _) = json("first-sight-restated-index");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3", "4"], "{v}");
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
}

/// Stages of another language named by a capital letter (`### Этап A —
/// чистый UI — ✅ выполнен`, `### Этап B — …`) are the steps, as `Stage A`
/// is: before, the word needed a number, and two bullets of the plan's
/// target model were dispatched as its steps instead.
#[test]
fn lettered_stages_of_another_language_are_the_steps() {
    let (status, v, _) = json("first-sight-lettered-stages");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
}

/// What a review of the CB and CC rounds' rules found read worse, each
/// read now as before them: an offer to run beside a phase once that
/// phase's work is merged is a wait for it; an agent that notifies others
/// when done does not wait for them; risks numbered in a series are no
/// steps of a phase-titled plan, whose own boxes stay its work; `✅ ready
/// to start` under `## Next steps` marks nothing done; an overview listing
/// every phase does not reorder the detail sections the plan orders in
/// words; a work-stream done and kept for reference is no step; and
/// `Validation (optional)` over tasks stays work.
#[test]
fn the_review_of_the_cb_and_cc_rounds_reads_as_before() {
    let (_, v, _) = json("first-sight-review10-conditional-offer");
    assert_eq!(deps(&v, 3), ["Phase 2", "Phase 3"], "{v}");
    let (_, v, _) = json("first-sight-review10-agent-notifies");
    assert_eq!(units(&v).len(), 1, "{v}");
    let (_, v, _) = json("first-sight-review10-risk-series");
    assert_eq!(names(&v, 0).len(), 1, "{v}");
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
    let (_, v, _) = json("first-sight-review10-ready-to-start");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
    let (_, v, _) = json("first-sight-review10-overview-order");
    assert_eq!(sprint_ids(&v, 0), ["2", "1", "3"], "{v}");
    let (_, v, _) = json("first-sight-review10-kept-for-reference");
    assert_eq!(names(&v, 0).len(), 3, "{v}");
    let (_, v, _) = json("first-sight-review10-optional-validation");
    assert_eq!(names(&v, 0).len(), 2, "{v}");
    assert!(
        v["units"][0]["sprints"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|s| s["tasks"].to_string().contains("ackfill")),
        "{v}"
    );
}

/// `Agent 2 starts after this is merged.` in Agent 1's section names Agent
/// 2 the other way round: Agent 1 does not wait for it (which would run the
/// API before its schema). A wait counts only where its word comes before
/// the name (`**Blocked by**: Agent 2`), or after it in languages that put
/// it last (`Agent 1 の完了後`); a mention this reading cannot tell the way
/// of keeps the phase in order.
#[test]
fn an_agent_named_the_other_way_round_is_no_wait() {
    let (status, v, _) = json("first-sight-agents-named-the-other-way");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(names(&v, 0).len(), 2, "{v}");
}

/// `- [x] **2. Persistence** (dep: 1)`: a task naming its waits in an
/// aside closing its name waits for those tasks, and the aside leaves the
/// name; `(dep: all)` waits for every task before it.
#[test]
fn a_dependency_aside_in_a_task_name_is_its_order() {
    let (status, v, _) = json("first-sight-dependency-asides");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 6, "{v}");
    assert_eq!(deps(&v, 2), ["Skeleton of both binaries"], "{v}");
    assert_eq!(
        deps(&v, 4),
        ["Persistence and migrations", "Admin authentication"],
        "{v}"
    );
    assert_eq!(deps(&v, 5).len(), 5, "{v}");
    assert_eq!(names(&v, 1), ["Persistence and migrations"], "{v}");
}

/// Numbered parts marked done one by one on their headings (`### 1.
/// Adapter contracts — done`) beside a part listing work with no mark: the
/// phase's ticks are those parts', the phase is not done, and the parts,
/// counted on across the phases (`4a`, `4b`, then `5` under Phase 2), are
/// the steps.
#[test]
fn parts_marked_done_one_by_one_leave_the_unmarked_part_open() {
    let (status, v, _) = json("first-sight-parts-marked-one-by-one");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0).len(), 7, "{v}");
    assert_eq!(
        done(&v, 0),
        [true, true, false, false, false, false, false],
        "{v}"
    );
}

/// `## Implementation Details` repeating two of the phases by word, id
/// and name (`### Phase 2: Scheduler Separation (Recommended First)`) is
/// about them: no second unit holding the same work again.
#[test]
fn a_section_restating_some_steps_is_about_them() {
    let (status, v, _) = json("first-sight-restating-details");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(names(&v, 0).len(), 4, "{v}");
}

/// "Phases 0-2 first …, then 3 with 4 in parallel": the range is to come
/// first, and the parallel words belong to the later group; phases 0 to 2
/// run in the order written, and 3 and 4 at once after them.
#[test]
fn a_range_named_first_is_not_said_to_run_at_once() {
    let (status, v, _) = json("first-sight-range-then-parallel");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 5, "{v}");
    assert_eq!(deps(&v, 1), ["Reconcile and freeze"], "{v}");
    assert_eq!(deps(&v, 2), ["Repository hygiene"], "{v}");
    assert_eq!(deps(&v, 3), ["Build and packaging"], "{v}");
    assert_eq!(deps(&v, 4), ["Build and packaging"], "{v}");
}

/// `### 任务A: 删除旧代码`: a word of a script without capitals runs into
/// its letter id, as `Task A` does with a space; the bold notes below are
/// no steps.
#[test]
fn lettered_tasks_run_into_their_word_are_the_steps() {
    let (status, v, _) = json("first-sight-lettered-tasks-cjk");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0).len(), 3, "{v}");
    assert!(names(&v, 0)[0].contains("删除旧代码"), "{v}");
}

/// A dependency tree drawn in a code block (`Phase 6` over `├──▶ Phase 7`,
/// `└──▶ Phase 9` over `└──▶ Phase 10`): each branch hangs from the node
/// above it, and a node noting `(depends on all above)` waits for every
/// phase before it, not only its own branch.
#[test]
fn a_drawn_tree_orders_the_phases_by_its_branches() {
    let (status, v, _) = json("first-sight-drawn-phase-tree");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 5, "{v}");
    assert_eq!(deps(&v, 1), ["Phase 6: Engine Hardening"], "{v}");
    assert_eq!(deps(&v, 3), ["Phase 6: Engine Hardening"], "{v}");
    assert_eq!(deps(&v, 4).len(), 4, "{v}");
}

/// `## Phase Details` holding Phases 5 to 7 and `## Progress` holding
/// Phase 8: sections named by no number that divide one series of steps
/// between them are chapters of one sequence, not two units running at
/// once (which a sentence in the second about Phases 6 and 7 had made
/// them).
#[test]
fn sections_dividing_one_series_are_chapters_of_one_sequence() {
    let (status, v, _) = json("first-sight-chapters-of-one-series");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["5", "6", "7", "8"], "{v}");
}

/// `## ℹ️ Fase 2: …`: a letter drawn as an emoji (the letter and its emoji
/// selector) is decoration before the step's word, as `🌟` is; the phase is
/// a step, not work outside every step.
#[test]
fn a_letter_drawn_as_an_emoji_is_decoration() {
    let (status, v, _) = json("first-sight-emoji-letter-heading");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
}

/// A `Phase Dependencies` list written with `Requires` and naming items by
/// their labels (`**US3 (Phase 5)**: Requires US1; can run in parallel
/// with US2`): each phase waits for what it requires, and the label in an
/// offer names its phase.
#[test]
fn a_phase_list_that_requires_by_label_orders_the_phases() {
    let (status, v, _) = json("first-sight-phase-list-requires-labels");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 5, "{v}");
    assert_eq!(deps(&v, 3), ["Phase 3"], "{v}");
    assert_eq!(deps(&v, 4), ["Phase 3"], "{v}");
}

/// What a review of this round's rules found read worse, each read now as
/// safely as before them: a sentence passing on in words the group reader
/// does not split at (`0-2 first, after that 3, 4 and 5 in parallel`)
/// gives no groups; a later section repeating steps with boxes of its own
/// is work, run after them; a task with no dependency aside, among tasks
/// with them, waits for every task before it; a drawn tree the plan then
/// keeps `strictly in order` orders nothing; an offer to run at once
/// declined in its own clause (`could … but … keep them sequential`)
/// offers nothing; sections a sentence names as running in parallel stay
/// units; and a numbered part about the phase (`### 3. Open questions`)
/// is no open work.
#[test]
fn the_review_of_this_rounds_rules_reads_as_safely_as_before() {
    let (_, v, _) = json("first-sight-review11-groups-after-that");
    assert_eq!(units(&v).len(), 1, "{v}");
    let (_, v, _) = json("first-sight-review11-restating-rollback-section");
    assert_eq!(units(&v).len(), 2, "{v}");
    assert_eq!(deps(&v, 1), ["Phased Approach"], "{v}");
    let (_, v, _) = json("first-sight-review11-asides-gap-steps-run-early");
    assert_eq!(deps(&v, 3).len(), 3, "{v}");
    assert_eq!(deps(&v, 5).len(), 5, "{v}");
    let (_, v, _) = json("first-sight-review11-tree-then-overridden");
    assert_eq!(units(&v).len(), 1, "{v}");
    let (_, v, _) = json("first-sight-review11-requires-parallel-offer-declined");
    assert!(deps(&v, 3).contains(&"Phase 3".to_string()), "{v}");
    let (_, v, _) = json("first-sight-review11-chapters-frontend-backend-continued");
    assert_eq!(units(&v).len(), 2, "{v}");
    let (_, v, _) = json("first-sight-review11-parts-split-open-questions");
    assert_eq!(done(&v, 0), [false, false], "{v}");
}

/// Two series at one level, `### Phase N` over the boxes the author ticks
/// and a longer `### Week N` schedule of plain lists restating the same
/// work: the ticked series is the work, not the schedule (whose reading
/// left every box outside every sprint).
#[test]
fn a_series_holding_the_boxes_is_the_work_over_a_plain_schedule() {
    let (status, v, _) = json("first-sight-boxed-series-over-schedule");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3"], "{v}");
    assert_eq!(v["tally"]["outside"], serde_json::json!([]), "{v}");
}

/// `### P1-1: …` under `## Phase 1`: the phase's letter and number, a
/// dash and the part's number name the phase's steps, as `1.1` does.
#[test]
fn steps_coded_with_their_phase_letter_are_its_steps() {
    let (status, v, _) = json("first-sight-lettered-step-codes");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["0.1", "0.2", "1.1", "1.2"], "{v}");
    assert_eq!(done(&v, 0), [true, true, false, false], "{v}");
}

/// What a second review of this round's rules found read worse, each read
/// now as before them: weeks holding the work beside phase summaries of
/// one box each stay the steps (the boxed series wins only over a plain
/// schedule restating what its boxes hold); a drawn tree pointing back
/// against the written order (what each phase needs first) orders
/// nothing; asides give no order where section headings order the tasks
/// (`## Next week (after this week's review)`) or an aside names something
/// no task answers to (`(dep: legal, ~1 week)`).
#[test]
fn the_second_review_of_this_rounds_rules_reads_as_before() {
    let (_, v, _) = json("first-sight-review12-series-week4-real-phase-summary");
    assert_eq!(names(&v, 0).len(), 4, "{v}");
    let (_, v, _) = json("first-sight-review12-tree-reverse-blocks");
    assert_eq!(units(&v).len(), 1, "{v}");
    let (_, v, _) = json("first-sight-review12-asides-cross-sections");
    assert_eq!(units(&v).len(), 1, "{v}");
    let (_, v, _) = json("first-sight-review12-asides-dep-parenthetical-note");
    assert_eq!(units(&v).len(), 1, "{v}");
}

/// `## Wave 3a`, `## Wave 3b` between `Wave 2` and `Wave 4`: lettered
/// parts of the series are steps of it, not dropped with their work.
#[test]
fn lettered_members_of_a_worded_series_are_steps() {
    let (status, v, _) = json("first-sight-lettered-waves");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["1", "2", "3a", "3b", "4"], "{v}");
}

/// `### QA Criteria` after `### Group 3`: what the whole is checked by,
/// not one more group of work.
#[test]
fn a_criteria_section_after_checklist_groups_is_no_group() {
    let (status, v, _) = json("first-sight-criteria-after-groups");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0).len(), 3, "{v}");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// A task table whose `依赖任务` column names the rows each waits for:
/// rows 2 and 3 wait for row 1, row 4 for both.
#[test]
fn a_chinese_dependency_column_orders_the_rows() {
    let (status, v, _) = json("first-sight-chinese-dependency-column");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 4, "{v}");
    assert_eq!(deps(&v, 1), deps(&v, 2), "{v}");
    assert_eq!(deps(&v, 1).len(), 1, "{v}");
    assert_eq!(deps(&v, 3).len(), 2, "{v}");
}

/// `**Status:** Complete` above the first section: the plan's own mark on
/// every step that says nothing of its own, and said as a guess.
#[test]
fn the_plans_own_status_line_marks_its_steps() {
    let (status, v, _) = json("first-sight-plan-status-line");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, true, true], "{v}");
    assert!(codes(&v, "guesses").contains(&"reading::done_elsewhere".to_string()));
}

/// A phase marked done whose items are marked one by one, one of them
/// still going (`- BE — Phase 2 🔄`, `(en cours)`): open, not done.
#[test]
fn an_item_still_going_keeps_its_done_phase_open() {
    let (status, v, _) = json("first-sight-items-marked-one-by-one");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, false, false, false], "{v}");
}

/// `- Phase 3: Offline mode` and `- Phase 4: Sharing` as list items with
/// work below them, outside every sprint: the reading says it left them
/// out.
#[test]
fn series_members_written_as_list_items_are_asked_about() {
    let (status, v, _) = json("first-sight-series-in-list-items");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0).len(), 2, "{v}");
    assert!(codes(&v, "guesses").contains(&"reading::series_outside".to_string()));
}

/// `**State:** Verified`: a packet done and checked.
#[test]
fn a_verified_state_is_done() {
    let (status, v, _) = json("first-sight-state-verified");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// `- [ ] **M1 — remaining: …**` in the progress list beside the ticked
/// `M1a` and `M1b`: the step's own entry says what of it is left, so the
/// ticked parts do not make it done.
#[test]
fn an_open_entry_for_the_whole_step_outweighs_its_ticked_parts() {
    let (status, v, _) = json("first-sight-open-entry-beside-ticked-parts");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [false, false, true, false], "{v}");
}

/// `### P0.5-01: …` under `## Phase 0.5`: the phase's letter and its
/// dotted number name its steps, as `P1-01` under `Phase 1` does.
#[test]
fn steps_coded_with_a_dotted_phase_number_are_its_steps() {
    let (status, v, _) = json("first-sight-decimal-phase-codes");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        sprint_ids(&v, 0),
        ["0.5.1", "0.5.2", "0.5.3", "1.1", "1.2"],
        "{v}"
    );
    assert_eq!(done(&v, 0), [true, true, false, false, false], "{v}");
    assert!(!codes(&v, "guesses").contains(&"reading::mixed_levels".to_string()));
}

/// Each task of a phase saying `**Blocked By**: Task 3`: tasks named by
/// their numbers, not phases; the phases keep their written order.
#[test]
fn task_dependency_lines_inside_a_phase_do_not_reorder_the_phases() {
    let (status, v, _) = json("first-sight-task-blocked-by-lines");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["0", "1", "2", "3"], "{v}");
}

/// `Status: Phasen 1–2 sind implementiert.`: a German span of steps
/// stated done marks those steps.
#[test]
fn a_german_status_span_marks_its_steps() {
    let (status, v, _) = json("first-sight-german-status-span");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// `## Ongoing Tasks` (commit regularly, add comments) beside the phases:
/// habits kept throughout, never a step, and its lines are not work.
#[test]
fn an_ongoing_section_is_no_step() {
    let (status, v, _) = json("first-sight-ongoing-section");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0).len(), 3, "{v}");
    assert!(!codes(&v, "warnings").contains(&"plan::work_outside".to_string()));
}

/// What a review of this round's rules found read worse, each read now as
/// before them or safer: the plan's status line marks nothing where a
/// step says where it stands (`Not started. Waiting for …`, `Remaining:
/// …`); a step naming two steps it waits for on two lines waits for every
/// step before it, not for the one written before it alone; a done word
/// followed by what is left (`Implementiert, aber noch nicht getestet`)
/// is open.
#[test]
fn the_third_review_of_this_rounds_rules_reads_as_before() {
    let (_, v, _) = json("first-sight-review13-status-line-open-steps");
    assert_eq!(done(&v, 0), [false, false, false], "{v}");
    let (_, v, _) = json("first-sight-review13-two-dependency-lines");
    assert_eq!(units(&v).len(), 5, "{v}");
    assert_eq!(deps(&v, 4).len(), 4, "{v}");
    let (_, v, _) = json("first-sight-review13-qualified-done-words");
    assert_eq!(done(&v, 0), [false, false, false], "{v}");
}

/// `- [ ] **M1 remaining — …**` beside the ticked `M1a` and `M1b`: what is
/// left of Milestone 1, so it is open.
#[test]
fn a_remaining_entry_keeps_its_step_open() {
    let (status, v, _) = json("first-sight-remaining-entry-beside-ticked-parts");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [false, false, true, false], "{v}");
}

/// `### Wave 1 (parallel): …` between `### Phase 0` and `### Phase 4`, at
/// their level: steps in their place, not dropped with their work, and
/// the reading says so.
#[test]
fn numbered_headings_among_the_steps_are_steps() {
    let (status, v, _) = json("first-sight-interleaved-waves");
    assert_eq!(status, 0, "{v}");
    assert_eq!(sprint_ids(&v, 0), ["0", "0b", "0c", "0d", "4"], "{v}");
    assert!(codes(&v, "guesses").contains(&"reading::interleaved".to_string()));
}

/// `## 品質ゲート` restating each `### Phase N` with ticked gates: the
/// phases' exit criteria, not a second unit of the same work, and Phase
/// 3 stays open by its own task lines.
#[test]
fn a_quality_gates_section_is_the_phases_criteria() {
    let (status, v, _) = json("first-sight-quality-gates");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// A table row saying `Phase 2A parallel with code review` describes that
/// work; Wave 4 still waits for Wave 3.
#[test]
fn a_rows_parallel_wording_does_not_move_its_section() {
    let (status, v, _) = json("first-sight-table-row-parallel");
    assert_eq!(status, 0, "{v}");
    assert_eq!(deps(&v, 3), ["Wave 3 — Rendering"], "{v}");
}

/// `### Status: Completed` under `## PHASE 1`: the phase's status, over a
/// table of tasks all done.
#[test]
fn a_status_heading_is_its_steps_status() {
    let (status, v, _) = json("first-sight-status-heading");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, false], "{v}");
}

/// Row names holding a code span lose its marks whole (not the closing
/// one alone), as the canonical form's reader drops them, so the
/// canonical form reads back the same.
#[test]
fn a_name_keeps_its_code_span_whole() {
    let (status, v, _) = json("first-sight-code-span-names");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v)[0], "数据库表设计 db/schema.sql", "{v}");
}

/// What a review of the CJ round's rules found read worse, each read now
/// as before them: numbered notes between the phases (`### Risk 2`, `###
/// ADR 3`) are no steps; gates listing work still to do under steps done
/// by their own ticks are not folded into them as criteria; `### Status:
/// Blocked` over a table of done rows keeps its step open.
#[test]
fn the_review_of_the_cj_rounds_rules_reads_as_before() {
    let (_, v, _) = json("first-sight-review14-numbered-notes");
    assert_eq!(sprint_ids(&v, 0), ["1", "2"], "{v}");
    let (_, v, _) = json("first-sight-review14-gates-with-work");
    assert_eq!(units(&v).len(), 2, "{v}");
    assert_eq!(done(&v, 1), [false, false], "{v}");
    let (_, v, _) = json("first-sight-review14-status-heading-open");
    assert_eq!(done(&v, 0), [false, false], "{v}");
}

/// `**Plans**:` at the margin under the criteria opens the phase's own
/// checklist: Phase 2, ticked in the index with a date, keeps its open
/// plan line and stays open (it read done, its plan boxes taken for
/// criteria). A note's label (`**Key risks**:`) stays with the criteria.
#[test]
fn a_label_at_the_margin_opens_a_part_of_its_own() {
    let (status, v, _) = json("first-sight-margin-labels");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
    assert!(codes(&v, "guesses").contains(&"reading::open_lines".to_string()));
    let s = sprint(&v, 0, 1);
    assert_eq!(exit_texts(s).len(), 3, "{v}");
    assert_eq!(s["tasks"].as_array().map(Vec::len), Some(4), "{v}");
}

/// A wave's tables one per part (`#### CORE`, `#### API`) are all its
/// items, and a graph node standing for a part (`T1_CORE[T1.CORE.*]`)
/// orders every unit of it: the plan was refused.
#[test]
fn a_waves_tables_per_part_and_a_group_node_are_read() {
    let (status, v, _) = json("first-sight-wave-part-tables");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 7, "{v}");
    assert_eq!(deps(&v, 4), ["T0.1", "T0.2"], "{v}");
    assert_eq!(
        deps(&v, 6),
        ["T1.CORE.1", "T1.CORE.2", "T1.API.1", "T1.API.2"],
        "{v}"
    );
}

/// Lines led by ✅ beside lines led by ⬜ are a checklist: Fase 0 is done
/// by its ticks, Fase 1 open by its one open line.
#[test]
fn lines_led_by_checks_are_ticked_boxes() {
    let (status, v, _) = json("first-sight-check-lines");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
}

/// A `| Field | Value |` table's `Status` row is its task's status.
#[test]
fn a_field_tables_status_row_is_the_steps_status() {
    let (status, v, _) = json("first-sight-field-table");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// `- [v]` ticks its box as `- [x]` does.
#[test]
fn a_box_ticked_with_v_is_ticked() {
    let (status, v, _) = json("first-sight-letter-ticks");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// What a review of the CK round's rules found read worse, each read now
/// as before them: a wave's rollback table (no dependency column) is no
/// work of the wave; `✅ 412/412 tests pass` beside plain numbered tasks
/// is no box that ticks the step; a field table about another thing over
/// plain tasks marks nothing; letter tags (`[B]`, `[V]`) are no ticks; an
/// architecture picture with a group node is not read as the units' plan.
#[test]
fn the_review_of_the_ck_rounds_rules_reads_as_before() {
    let (_, v, _) = json("first-sight-review15-rollback-table");
    assert_eq!(units(&v), ["D1.1", "D1.2", "D2.1", "D2.2"], "{v}");
    let (_, v, _) = json("first-sight-review15-check-results");
    assert_eq!(done(&v, 0), [false, false, false], "{v}");
    let (_, v, _) = json("first-sight-review15-field-table-other");
    assert_eq!(done(&v, 0), [false, false], "{v}");
    let (_, v, _) = json("first-sight-review15-letter-tags");
    assert_eq!(done(&v, 0), [false, false, false], "{v}");
    let (status, v, _) = json("first-sight-review15-group-node-picture");
    assert_eq!(status, 0, "{v}");
}

/// `:white_check_mark:` in a status cell is the ✅ GitHub draws; rows keyed
/// by their work wait for one another by the ids beside it (`001-002`); and
/// a task table inside `### Phase 1` orders its rows, not the phases.
#[test]
fn shortcodes_mark_rows_and_ids_order_them() {
    let (status, v, _) = json("first-sight-state-shortcodes");
    assert_eq!(status, 0, "{v}");
    assert_eq!(v["units"].as_array().unwrap().len(), 6, "{v}");
    assert_eq!(
        deps(&v, 2),
        [
            "Scaffold the billing service",
            "Scaffold the invoice library"
        ],
        "{v}"
    );
    assert_eq!(deps(&v, 3), ["Scaffold the invoice library"], "{v}");
    let done: Vec<bool> = (0..6).map(|u| sprints_done(&v, u)[0]).collect();
    assert_eq!(done, [true, true, true, false, false, false], "{v}");
}

/// A phase whose every subsection holds only status tables with every
/// row done is done, its summary's totals row and its sign-off checklist
/// aside; a phase with a running or pending row is not.
#[test]
fn a_phase_of_done_status_tables_is_done() {
    let (status, v, _) = json("first-sight-status-table-leaves");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, false], "{v}");
}

/// A table of numbered phases (`| Faz | Başlık | Görev Sayısı |`) beside a
/// mermaid graph naming them (`F1[Faz 1: DB] --> F3[Faz 3: API & Auth]`)
/// runs each phase as the graph orders it; the count column names no step.
#[test]
fn a_graph_orders_a_table_of_phases() {
    let (status, v, _) = json("first-sight-table-graph");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        units(&v),
        [
            "Proje Altyapısı",
            "Veritabanı Modelleri",
            "Dış API Entegrasyonları",
            "API Katmanı & Auth",
            "Test & Deploy"
        ],
        "{v}"
    );
    assert_eq!(deps(&v, 1), ["Proje Altyapısı"], "{v}");
    assert_eq!(deps(&v, 2), ["Proje Altyapısı"], "{v}");
    assert_eq!(
        deps(&v, 3),
        ["Veritabanı Modelleri", "Dış API Entegrasyonları"],
        "{v}"
    );
}

/// What a review of the CM round's rules found read worse, each read now
/// as before them: prose naming work left beside done status tables keeps
/// the phase open; task tables numbered afresh under each phase (`| 1 |`
/// under Phase 1 and Phase 2) order no rows across phases; a phase named
/// `Sign-off` holds work, not criteria.
#[test]
fn the_review_of_the_cm_rounds_rules_reads_as_before() {
    let (_, v, _) = json("first-sight-review16-done-table-plus-prose");
    assert_eq!(done(&v, 0), [false, false], "{v}");
    let (_, v, _) = json("first-sight-review16-tasks-restart-per-phase");
    assert_eq!(units(&v), ["Auth Overhaul"], "{v}");
    assert_eq!(names(&v, 0), ["Tokens", "SSO"], "{v}");
    let (_, v, _) = json("first-sight-review16-sign-off-phase");
    assert_eq!(
        sprint(&v, 0, 1)["tasks"].as_array().unwrap().len(),
        3,
        "{v}"
    );
    // Its one subsection of done status tables marks Phase 1 done.
    assert_eq!(done(&v, 0), [true, false], "{v}");
    // A graph whose arrows run back over the table keeps it in order.
    let (status, v, _) = json("first-sight-review16-table-graph-cycle");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 1, "{v}");
}

/// A sprint table (`| Phase | Name |`) whose phases one mermaid graph
/// names runs each phase as the graph orders it, `F2 & F3 --> F4[Phase 4:
/// API & Auth]` two arrows into one node.
#[test]
fn a_graph_orders_a_sprint_table() {
    let (status, v, _) = json("first-sight-sprint-table-graph");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        units(&v),
        ["Database", "Models", "Jobs", "API & Auth"],
        "{v}"
    );
    assert_eq!(deps(&v, 3), ["Models", "Jobs"], "{v}");
    assert_eq!(deps(&v, 2), ["Database"], "{v}");
}

/// What a second review of the CM round's graph and status-table rules
/// found read worse, each read now as before them: a phase whose own text
/// says work remains above one subsection of done tables stays open, as
/// does one whose notes column says `still TODO`; a graph of a decision's
/// alternatives, or of other things than the table's steps (milestones
/// beside a sprint table), orders nothing.
#[test]
fn the_second_review_of_the_cm_rounds_rules_reads_as_before() {
    let (_, v, _) = json("first-sight-review17-done-table-under-remaining");
    assert_eq!(done(&v, 0), [false, false], "{v}");
    let (_, v, _) = json("first-sight-review17-notes-say-todo");
    assert_eq!(done(&v, 0), [false, false], "{v}");
    // A graph of the rollback paths (`Rollback paths if something goes
    // wrong:` over `P3 --> P2 --> P1`) is no order of the phases.
    let (status, v, _) = json("first-sight-review17-rollback-graph");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(names(&v, 0), ["Dual write", "Backfill", "Cutover"], "{v}");
    // Boxes drawn as shortcodes at a line's start stay boxes.
    let (_, v, _) = json("first-sight-review17-drawn-box-lines");
    assert_eq!(names(&v, 0), ["Checklist", "Next"], "{v}");
    assert_eq!(done(&v, 0), [true, false], "{v}");
    for plan in [
        "first-sight-review17-graph-of-alternatives",
        "first-sight-review17-graph-of-milestones",
    ] {
        let (status, v, _) = json(plan);
        assert_eq!(status, 0, "{v}");
        assert_eq!(units(&v).len(), 1, "{plan}: {v}");
    }
}

/// A mermaid graph under words of another thing (`## Runtime
/// architecture`, the running system's data flow) orders no phases, even
/// one naming every phase the plan details.
#[test]
fn a_graph_of_the_architecture_orders_no_phases() {
    let (status, v, _) = json("first-sight-architecture-graph");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(names(&v, 0), ["Parser", "Enricher", "Writer"], "{v}");
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
}

/// A status table keyed by `Phase` (a finished MVP's phases) beside steps
/// written `### Wave N`: its rows name other steps, so they neither mark
/// the waves nor add sprints of their own.
#[test]
fn a_status_table_of_other_steps_marks_no_sprint() {
    let (status, v, _) = json("first-sight-status-table-other-step");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Wave 1: Plugin Loader",
            "Wave 2: Plugin CLI (Depends on Wave 1)",
            "Wave 3: Manifest (Depends on Wave 2)"
        ],
        "{v}"
    );
    assert_eq!(done(&v, 0), [true, false, false], "{v}");
}

/// `## 3. Validation and QA` numbered among the steps joins `QA` to work
/// of its own: a step, its open lines work; `## 4. Risks and Follow-ups`
/// is still about the plan.
#[test]
fn a_name_joined_to_qa_is_a_step() {
    let (status, v, _) = json("first-sight-joined-about-name");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Environment and Tooling",
            "Build System",
            "Validation and QA"
        ],
        "{v}"
    );
}

/// A numbered summary of the phases led by state emoji (`1. ✅ **Phase 1:
/// Research** - COMPLETE`, `3. ⏸️ **Phase 3: User Approval**`) is an
/// index: phases it lists without a section are sprints in their place,
/// done where it ticks them, and the open gate is not skipped.
#[test]
fn an_emoji_summary_of_phases_is_an_index() {
    let (status, v, _) = json("first-sight-emoji-step-summary");
    assert_eq!(status, 0, "{v}");
    assert_eq!(
        names(&v, 0),
        [
            "Research",
            "Planning",
            "User Approval",
            "Implementation (Detailed Steps)",
            "Manual Testing"
        ],
        "{v}"
    );
    assert_eq!(done(&v, 0), [true, true, false, false, false], "{v}");
}

/// What a review of the CO round's rules found read worse, each read now
/// as it should: a graph of the phases under `Build order (decision made)`
/// still orders them; a graph under `Old pipeline (for reference)` orders
/// nothing; `✅ **Phase 2: tests pass on main**` under `Success criteria`
/// marks nothing done; a `| Phase 1 | Metrics |` row beside `### Wave 1:
/// Metrics` names that wave, and its rows past the waves stay sprints.
#[test]
fn the_review_of_the_co_rounds_rules_reads_as_it_should() {
    let (status, v, _) = json("first-sight-review18-decided-build-order");
    assert_eq!(status, 0, "{v}");
    assert_eq!(units(&v).len(), 4, "{v}");
    assert_eq!(deps(&v, 2), ["Phase 1: Index Schema"], "{v}");
    let (_, v, _) = json("first-sight-review18-old-pipeline-graph");
    assert_eq!(units(&v).len(), 1, "{v}");
    assert_eq!(names(&v, 0), ["Build", "Lint", "Deploy"], "{v}");
    let (_, v, _) = json("first-sight-review18-emoji-success-criteria");
    assert_eq!(done(&v, 0), [false, false], "{v}");
    let (_, v, _) = json("first-sight-review18-phase-rows-name-waves");
    assert_eq!(
        names(&v, 0),
        [
            "Wave 1: Metrics",
            "Wave 2: Tracing",
            "Dashboards",
            "On-call runbooks"
        ],
        "{v}"
    );
}

/// A step marked `✅ COMPLETED` whose one open line is put off in an
/// aside of several parts (`Add deprecation warnings (optional, future)`)
/// is done: each part of the aside is read on its own.
#[test]
fn a_line_put_off_to_the_future_leaves_its_step_done() {
    let (status, v, _) = json("first-sight-optional-future-line");
    assert_eq!(status, 0, "{v}");
    assert_eq!(done(&v, 0), [true, true, false], "{v}");
}

/// Waves numbered on from the sprints' (`### Wave 3`, `### Wave 4`) under
/// `## Future Feature Ideas (Backlog)`, one of their lines ticked: the
/// plan's work ran on into a section read as no work, and the reading
/// says so and asks rather than leave them out silently.
#[test]
fn a_series_run_on_into_a_backlog_is_asked() {
    let (status, v, _) = json("first-sight-series-into-backlog");
    assert_eq!(status, 0, "{v}");
    assert_eq!(names(&v, 0).len(), 2, "{v}");
    assert!(
        codes(&v, "guesses").contains(&"reading::series_outside".to_string()),
        "{v}"
    );
}
