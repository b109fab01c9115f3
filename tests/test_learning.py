"""The lean masked PPO (pontoon_tools/ppo.py): masking, advantages, features, determinism, and short
trainings of each role that beat the random policy by margins far outside their intervals."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from pontoon_env.envs.vector import PontoonVectorEnv
from pontoon_tools.evaluation import estimate, load_policy, play_match
from pontoon_tools.ppo import Collector, LeanPPO, PontoonFeatures, PPOConfig, Rollout, feature_spec, random_play
from pontoon_tools.training import Trainer, TrainSettings, lean_config

torch.set_num_threads(1)

SHORT = TrainSettings(timesteps=120_000, n_envs=512, n_steps=16, batch_size=2048, n_epochs=4, eval_rounds=0,
                      progress=False, sampler="inline", seed=0)


def _holder(venv: PontoonVectorEnv, **policy_kwargs):  # a MaskablePPO whose policy LeanPPO trains
    from sb3_contrib import MaskablePPO

    from pontoon_env.envs.sb3 import PontoonSB3VecEnv

    return MaskablePPO("MlpPolicy", PontoonSB3VecEnv(venv=venv), seed=0, device="cpu", n_steps=8,
                       batch_size=8, policy_kwargs=policy_kwargs or None)


def test_sampling_never_picks_an_illegal_id() -> None:
    venv = PontoonVectorEnv(num_envs=64, rules="pagat", num_players=2)
    model = _holder(venv)
    collector = Collector(venv, model.policy, PPOConfig(n_steps=32, seed=1))
    rollout = Rollout(32, 64, venv.single_observation_space.shape[0], venv.single_action_space.n)
    collector.collect(rollout)
    rows = rollout.masks.reshape(-1, rollout.masks.shape[-1])
    chosen = rollout.actions.reshape(-1)
    assert rows[torch.arange(chosen.numel()), chosen].all()
    assert torch.isfinite(rollout.logp).all() and (rollout.logp <= 0).all()


def test_advantages_are_the_gae_recursion() -> None:
    """Two tables, three steps: an episode ends at step 1 of table 0; rewards and values by hand."""
    venv = PontoonVectorEnv(num_envs=2, rules="pagat", num_players=1)
    ppo = LeanPPO(venv, _holder(venv), PPOConfig(n_steps=3, gamma=0.9, gae_lambda=0.5))
    r = ppo.rollout
    r.rewards.copy_(torch.tensor([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]]))
    r.values.copy_(torch.tensor([[0.5, 1.0], [0.2, 0.4], [0.1, 0.3]]))
    r.dones.copy_(torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    r.boot.zero_()
    r.last_value.copy_(torch.tensor([0.7, 0.9]))
    adv, returns = ppo.advantages(r)

    def gae(rewards, values, dones, last):
        out, running = [0.0] * 3, 0.0
        for t in reversed(range(3)):
            nxt = last if t == 2 else values[t + 1]
            alive = 1.0 - dones[t]
            delta = rewards[t] + 0.9 * nxt * alive - values[t]
            running = delta + 0.9 * 0.5 * alive * running
            out[t] = running
        return out

    for k in range(2):
        col = [gae(r.rewards[:, k].tolist(), r.values[:, k].tolist(), r.dones[:, k].tolist(), float(r.last_value[k]))]
        assert adv[:, k].tolist() == pytest.approx(col[0], abs=1e-6)
    assert torch.allclose(returns, adv + r.values)


def test_round_credit_cuts_the_chain_at_a_round_end_and_reads_each_round_return() -> None:
    """One table, four steps of a session: a round ends at step 1 (the session goes on) and the
    next round is still going at the end of the rollout. With round credit the advantage of steps
    0-1 stops at the round's end as at an episode's end (no value of the next round), the per-chip
    return of steps 0-1 is the round's rewards alone, and steps 2-3 have no round result yet."""
    venv = PontoonVectorEnv(num_envs=1, rules="pagat", num_players=1)
    credit = LeanPPO(venv, _holder(venv), PPOConfig(n_steps=4, gamma=1.0, gae_lambda=0.9, round_credit=True))
    plain = LeanPPO(venv, _holder(venv), PPOConfig(n_steps=4, gamma=1.0, gae_lambda=0.9))
    r = credit.rollout
    r.rewards.copy_(torch.tensor([[0.0], [2.0], [0.0], [0.0]]))
    r.values.copy_(torch.tensor([[0.5], [1.0], [3.0], [4.0]]))
    r.dones.zero_()
    r.boot.zero_()
    r.round_end.copy_(torch.tensor([[0.0], [1.0], [0.0], [0.0]]))
    r.last_value.copy_(torch.tensor([5.0]))
    adv, returns = credit.advantages(r)
    deltas = [0.0 + 1.0 - 0.5, 2.0 + 3.0 - 1.0, 0.0 + 4.0 - 3.0, 0.0 + 5.0 - 4.0]
    ended = [deltas[0], 2.0 - 1.0, deltas[2], deltas[3]]  # the round's last step: its reward, no next value
    cut = [ended[0] + 0.9 * ended[1], ended[1], ended[2] + 0.9 * ended[3], ended[3]]
    assert adv[:, 0].tolist() == pytest.approx(cut)
    assert torch.allclose(returns, adv + r.values)
    assert returns[1, 0].item() == pytest.approx(2.0)  # the critic's target at a round's end is the round's result
    uncut, _ = plain.advantages(r)  # without round credit the chain runs through the round's end
    assert uncut[0, 0].item() == pytest.approx(deltas[0] + 0.9 * (deltas[1] + 0.9 * (deltas[2] + 0.9 * deltas[3])))
    round_return, known = credit.round_returns(r)
    assert round_return[:2, 0].tolist() == [2.0, 2.0] and known[:, 0].tolist() == [True, True, False, False]


def test_round_credit_and_hand_pooling_reach_the_learner_where_they_apply() -> None:
    """Round credit is on for session episodes only (and off with --no-round-credit); the hand
    summary is in a lean_ppo banker's default inputs and not in a player's."""
    for episode, flag, expected in (("session", True, True), ("round", True, False), ("session", False, False)):
        settings = TrainSettings(episode=episode, round_credit=flag).for_role("player")
        assert lean_config(settings, seed=0).round_credit is expected, (episode, flag)
    assert "hands" in TrainSettings(role="banker").for_role("banker").features
    assert "hands" not in TrainSettings().for_role("player").features


def test_collector_marks_the_round_ends_of_a_session() -> None:
    venv = PontoonVectorEnv(num_envs=32, rules="pagat", num_players=1, episode="session", session_rounds=3)
    collector = Collector(venv, _holder(venv).policy, PPOConfig(n_steps=24, seed=2, round_credit=True))
    rollout = Rollout(24, 32, venv.single_observation_space.shape[0], venv.single_action_space.n)
    collector.collect(rollout)
    ends, dones = rollout.round_end > 0, rollout.dones > 0
    assert (ends | ~dones).all()  # every episode's end is a round's end
    assert (ends & ~dones).sum() > (ends & dones).sum()  # two of a session's three round ends go on
    # every round's result arrives at its end: no reward on a step inside a round
    assert (rollout.rewards[~ends] == 0).all()


def test_stake_advantage_reweights_only_the_play_after_the_stake() -> None:
    venv = PontoonVectorEnv(num_envs=256, rules="pagat", num_players=1, learner_seat=1)
    names = venv.action_names
    stake_ids = np.array([i for i, n in enumerate(names) if n.startswith("stake")])
    index = next(f.slice.start for f in venv.single.encoder.index_table() if f.name == "own[0].initial")
    config = PPOConfig(n_steps=8, stake_advantage=True)
    ppo = LeanPPO(venv, _holder(venv), config, stake_index=index, stake_decision=stake_ids)
    ppo.collector.collect(ppo.rollout)
    plain = LeanPPO(venv, _holder(venv), dataclasses.replace(config, stake_advantage=False))
    weighted, _ = ppo.advantages(ppo.rollout)
    base, _ = plain.advantages(ppo.rollout)
    initial = ppo.rollout.obs[..., index]
    staking = ppo.rollout.masks[..., torch.as_tensor(stake_ids)].any(-1)
    assert torch.allclose(weighted[staking], base[staking])  # the stake itself is in chips
    later = ~staking & (initial > 0)
    assert later.any() and torch.allclose(weighted[later], base[later] / initial[later])


def test_stake_expected_loss_is_the_expected_stake_times_the_return_per_chip() -> None:
    """Staking rows: -E_pi[stake] * (return / stake taken) / scale, whatever the level taken; other
    rows keep their PPO term; its gradient raises the expected stake where the return per chip is
    positive and lowers it where negative."""
    venv = PontoonVectorEnv(num_envs=64, rules="pagat", num_players=1, learner_seat=1)
    names = venv.action_names
    stake_ids = np.array([i for i, n in enumerate(names) if n.startswith("stake")])
    chips = np.array([int(names[i].split(":")[1]) for i in stake_ids])
    with pytest.raises(ValueError, match="stake_expected"):
        LeanPPO(venv, _holder(venv), PPOConfig(stake_expected=True), stake_decision=stake_ids)
    ppo = LeanPPO(venv, _holder(venv), PPOConfig(n_steps=8, stake_expected=True), stake_decision=stake_ids,
                  stake_chips=chips)
    n = len(names)
    masks = torch.zeros(3, n, dtype=torch.bool)
    masks[:2, torch.as_tensor(stake_ids)] = True  # rows 0, 1 stake; row 2 plays
    masks[2, names.index("stick")] = masks[2, names.index("twist")] = True
    logits = torch.zeros(3, n, requires_grad=True)
    logp_all = torch.log_softmax(logits.masked_fill(~masks, -1e8), dim=-1)
    actions = torch.tensor([stake_ids[0], stake_ids[-1], names.index("stick")])
    returns = torch.tensor([2.0, -5.0, 7.0])
    ppo_term = torch.tensor([0.1, 0.2, 0.3])
    out = ppo._stake_expected_loss(ppo_term, logp_all, masks, actions, returns, torch.tensor(2.0))
    mean_stake = float(chips.mean())  # uniform over the four levels
    assert out[0].item() == pytest.approx(-mean_stake * (2.0 / chips[0]) / 2.0)
    assert out[1].item() == pytest.approx(-mean_stake * (-5.0 / chips[-1]) / 2.0)
    assert out[2].item() == pytest.approx(0.3)
    out[:2].sum().backward()
    top, bottom = int(stake_ids[-1]), int(stake_ids[0])
    assert logits.grad[0, top] < 0 < logits.grad[0, bottom]  # descent raises the top stake's logit
    assert logits.grad[1, top] > 0 > logits.grad[1, bottom]  # and lowers it when a chip loses


def _draw_prices(venv: PontoonVectorEnv):
    from pontoon_tools.ppo import DrawPrices

    names = venv.action_names
    buy_ids = [i for i, n in enumerate(names) if n.startswith("buy")]
    return DrawPrices([names.index("twist"), *buy_ids], [venv.single.table.slots[i].level for i in buy_ids],
                      venv.single.rules, venv.single.encoder), buy_ids


def test_draw_prices_are_what_the_engine_charges() -> None:
    """Differential: in random play, every buy taken raises the hand's stake by the price that
    DrawPrices read off the observation before it (from the rules' buy limits), and a twist by 0."""
    venv = PontoonVectorEnv(num_envs=256, rules="pagat", num_players=1, learner_seat=1)
    prices_of, buy_ids = _draw_prices(venv)
    names = venv.action_names
    twist = names.index("twist")
    rng = np.random.default_rng(0)
    obs, _ = venv.reset(seed=4)
    active = next(f.slice.start for f in venv.single.encoder.index_table() if f.name == "own[0].active")
    checked = {twist: 0, **{i: 0 for i in buy_ids}}
    for _ in range(40):
        masks = venv.action_masks()
        actions = (rng.random(masks.shape) * masks).argmax(1)
        before = torch.as_tensor(obs)
        prices, stake, _ = prices_of.read(before)
        obs, _, terminated, truncated, _ = venv.step(actions)
        after_stake = prices_of.read(torch.as_tensor(obs))[1]
        for table in np.flatnonzero(~(terminated | truncated)):
            a = int(actions[table])
            if a not in checked or not (obs[table, active] > 0.5 and before[table, active] > 0.5):
                continue  # not a draw, or not the same (first) hand before and after
            k = 0 if a == twist else 1 + buy_ids.index(a)
            assert after_stake[table] - stake[table] == prices[table, k], (names[a], table)
            checked[a] += 1
    assert all(n > 20 for n in checked.values()), checked


def test_draw_expected_loss_moves_each_price_logit_by_its_weight() -> None:
    """Rows that drew a card where a buy was legal get ``-rho / scale * sum_a w_a logit_a`` added
    (``rho`` = return / chips played for, ``w_a`` = price less the policy's mean price given a
    draw, in initial stakes with the stake weighting, held fixed): each drawing logit's gradient is
    ``-rho w_a / scale`` however unlikely the move, favouring the dearest buy when a chip on the
    hand wins and the twist when it loses, leaving the stick alone and the chance of drawing
    unchanged to first order."""
    venv = PontoonVectorEnv(num_envs=64, rules="pagat", num_players=1, learner_seat=1)
    prices_of, buy_ids = _draw_prices(venv)
    names = venv.action_names
    with pytest.raises(ValueError, match="draw_expected"):
        LeanPPO(venv, _holder(venv), PPOConfig(draw_expected=True))
    ppo = LeanPPO(venv, _holder(venv), PPOConfig(n_steps=8, draw_expected=True, stake_advantage=True),
                  stake_index=0, draw_prices=prices_of)
    fields = {f.name: f.slice.start for f in venv.single.encoder.index_table()}
    obs = torch.zeros(3, venv.single_observation_space.shape[0])
    obs[:, fields["own[0].active"]] = 1.0
    obs[:, fields["own[0].initial"]] = obs[:, fields["own[0].stake"]] = 0.4  # 4 chips: buys cost 4 or 8
    n = len(names)
    masks = torch.zeros(3, n, dtype=torch.bool)
    for i in ("stick", "twist", *[names[b] for b in buy_ids]):
        masks[:2, names.index(i)] = True
    masks[2, names.index("stick")] = masks[2, names.index("twist")] = True  # no buy legal: untouched
    twist, buy_min, buy_max, stick = (names.index(k) for k in ("twist", "buy:min", "buy:max", "stick"))
    logits = torch.zeros(3, n)
    logits[:2, twist] = 3.0  # a policy that seldom buys
    logits.requires_grad_(True)
    actions = torch.tensor([buy_max, twist, twist])
    returns = torch.tensor([24.0, -8.0, 5.0])
    base = torch.tensor([0.1, 0.2, 0.3])
    out = ppo._draw_expected_loss(base, logits, masks, *ppo._draw_inputs(masks, actions, returns, obs), torch.tensor(2.0))
    prices = prices_of.read(obs)[0][0]
    assert prices.tolist() == [0.0, 4.0, 8.0]
    assert out[2].item() == pytest.approx(0.3)
    (out[:2] - base[:2]).sum().backward()
    g = logits.grad
    pi = torch.softmax(torch.tensor([3.0, 0.0, 0.0]), 0)
    weights = (prices - (pi * prices).sum()) / 4  # price less the policy's mean price, in initial stakes
    for row, rho in ((0, 24.0 / (4 + 8)), (1, -8.0 / 4)):
        assert g[row, [twist, buy_min, buy_max]].tolist() == pytest.approx((-rho * weights / 2.0).tolist(), abs=1e-5)
        assert g[row, stick].abs() < 1e-6  # draw or stick is the PPO term's business
        assert (pi * g[row, [twist, buy_min, buy_max]]).sum().abs() < 1e-5  # the chance of drawing holds
    assert g[0, buy_max] < 0 < g[0, twist]  # descent raises buy:max after a winning draw
    assert g[1, buy_max] > 0 > g[1, twist]  # and the twist after a losing one


def test_features_keep_onehot_and_standardise() -> None:
    venv = PontoonVectorEnv(num_envs=128, rules="pagat", num_players=1, learner_seat=1)
    samples, keep = random_play(venv, steps=16, seed=0)
    assert 40 < len(keep) < samples.shape[1]  # the banker's hidden hand and the empty seat slots never move
    spec = feature_spec(venv.single.encoder)
    features = PontoonFeatures(venv.single_observation_space, keep=keep, active_onehot=True, spec=spec,
                               standardize=True)
    features.fit(samples)
    x = torch.as_tensor(samples)
    raw = features.raw(x)
    assert raw.shape == (len(samples), len(keep) + 42)
    assert torch.equal(raw[:, :len(keep)], x[:, keep])
    fields = {f.name: f.slice.start for f in venv.single.encoder.index_table()}
    playing = x[:, fields["own[0].active"]] > 0.5
    total = torch.round(x[playing, fields["own[0].total"]] * 21).long()
    assert torch.equal(raw[playing, len(keep):len(keep) + 32].argmax(1), total)
    standard = features(x)
    assert standard.mean(0).abs().max() < 1e-3  # centred on the samples it was fitted to


def test_seat_pooling_reads_every_seat_alike_whatever_its_slot() -> None:
    """``seat_pool`` sums one shared layer over the other seats: swapping two seats' blocks leaves
    the pooled summary unchanged, changing one seat's block changes it, and the width is as declared."""
    venv = PontoonVectorEnv(num_envs=64, rules="pagat", num_players=4, role="banker")
    samples, _ = random_play(venv, steps=8, seed=0)
    spec = feature_spec(venv.single.encoder)
    assert spec["seat_count"] == 4 and spec["seat_stride"] > 0
    features = PontoonFeatures(venv.single_observation_space, active_onehot=True, spec=spec, seat_pool=16)
    x = torch.as_tensor(samples)
    out = features(x)
    assert out.shape == (len(samples), samples.shape[1] + 42 + 16)
    start, stride = spec["seat_start"], spec["seat_stride"]
    first, second = slice(start, start + stride), slice(start + 2 * stride, start + 3 * stride)
    swapped = x.clone()
    swapped[:, first], swapped[:, second] = x[:, second], x[:, first]
    moved = (x[:, first] != x[:, second]).any(1)
    assert moved.any()  # the swap changes the observation somewhere
    assert torch.allclose(features(swapped)[:, -16:], out[:, -16:], atol=1e-5)
    changed = x.clone()
    changed[:, first] = 1.0 - changed[:, first]
    assert not torch.allclose(features(changed)[:, -16:], out[:, -16:])
    assert any(p.requires_grad for p in features.parameters())  # learnt: computed per minibatch
    with pytest.raises(ValueError, match="seat_pool"):
        PontoonFeatures(venv.single_observation_space, spec=spec, seat_pool=-1)


def test_short_player_training_beats_random_by_far(tmp_path: Path) -> None:
    settings = dataclasses.replace(SHORT, out=str(tmp_path / "player"))
    trainer = Trainer(settings, "player", Path(settings.out))
    path = trainer.run()
    rules = trainer.rules
    banker = load_policy("banker_threshold", rules, 1)
    model = play_match(rules, 1, [banker, load_policy(str(path), rules, 1)], 20_000, seed=5)
    rand = play_match(rules, 1, [banker, load_policy("random", rules, 1)], 20_000, seed=5)
    diff = estimate(model.ev(1) - rand.ev(1))
    # Random loses about 4 a round against this banker; 120,000 steps already make the player profitable.
    assert diff.low > 2.5, diff
    # Reloaded from disk, the model makes the same decisions (the same rounds, chip for chip).
    again = play_match(rules, 1, [banker, load_policy(str(path), rules, 1)], 2_000, seed=6)
    from agents.model import ModelPolicy

    inmem = play_match(rules, 1, [banker, ModelPolicy(trainer.model, rules, 1)], 2_000, seed=6)
    assert np.array_equal(again.net, inmem.net)


def test_short_banker_training_beats_random_by_far(tmp_path: Path) -> None:
    settings = dataclasses.replace(SHORT, role="banker", seats=1, out=str(tmp_path / "banker"))
    trainer = Trainer(settings, "banker", Path(settings.out))
    path = trainer.run()
    rules = trainer.rules
    player = load_policy("threshold", rules, 1)
    model = play_match(rules, 1, [load_policy(str(path), rules, 1), player], 20_000, seed=5)
    rand = play_match(rules, 1, [load_policy("random", rules, 1), player], 20_000, seed=5)
    diff = estimate(model.ev(0) - rand.ev(0))
    assert diff.low > 0.3, diff


def test_the_process_sampler_learns_deterministically(tmp_path: Path) -> None:
    """Two runs with the sampler process and the same seed end with the same weights; its rollouts
    come from the same tables as the inline sampler's (same reset seed), one update behind."""
    settings = dataclasses.replace(SHORT, timesteps=3 * 256 * 8, n_envs=256, n_steps=8, batch_size=1024,
                                   sampler="process")
    weights = []
    for name in ("a", "b"):
        trainer = Trainer(dataclasses.replace(settings, out=str(tmp_path / name)), "player", tmp_path / name)
        trainer.run()
        weights.append(torch.nn.utils.parameters_to_vector(trainer.model.policy.parameters()).detach())
        config = json.loads((tmp_path / name / "config.json").read_text())
        assert config["sampler"] == "process" and config["timesteps"] == 3 * 256 * 8
    assert torch.equal(weights[0], weights[1])


def test_hand_pooling_reads_every_present_hand_alike_and_nothing_else() -> None:
    """``hand_pool`` sums one shared layer over the other players' hands: swapping two seats' hands
    leaves the summary unchanged, a hand's card count and visible total reach it one-hot, and a
    slot with no hand adds nothing, whatever garbage its fields hold."""
    venv = PontoonVectorEnv(num_envs=64, rules="pagat", num_players=4, role="banker")
    samples, _ = random_play(venv, steps=8, seed=0)
    spec = feature_spec(venv.single.encoder)
    assert (spec["hand_start"], spec["hand_stride"]) == (3, 13) and spec["hand_count"] == 4
    features = PontoonFeatures(venv.single_observation_space, active_onehot=True, spec=spec, hand_pool=16)
    x = torch.as_tensor(samples)
    out = features(x)
    assert out.shape == (len(samples), samples.shape[1] + 42 + 16)
    start, stride = spec["seat_start"], spec["seat_stride"]
    hand = spec["hand_start"]
    first = slice(start + hand, start + hand + spec["hand_stride"])
    second = slice(start + 2 * stride + hand, start + 2 * stride + hand + spec["hand_stride"])
    swapped = x.clone()
    swapped[:, first], swapped[:, second] = x[:, second], x[:, first]
    assert (x[:, first] != x[:, second]).any()
    assert torch.allclose(features(swapped)[:, -16:], out[:, -16:], atol=1e-5)
    # an absent hand (present flag 0: here a first seat's second hand, there only after a split)
    # adds nothing, whatever its other fields say
    split = slice(first.stop, first.stop + spec["hand_stride"])
    absent = x[:, split.start] == 0
    assert absent.any() and absent.float().mean() > 0.5
    junk = x.clone()
    junk[:, split.start + 1:split.stop] = 0.7
    junk[~absent, split.start + 1:split.stop] = 1.0 - x[~absent, split.start + 1:split.stop]
    assert torch.allclose(features(junk)[absent][:, -16:], out[absent][:, -16:], atol=1e-5)
    assert not torch.allclose(features(junk)[~absent][:, -16:], out[~absent][:, -16:])
    # the one-hot inputs: a hand of 3 cards showing 16 lights columns 3 and 6 + 16 of its one-hots
    probe = torch.zeros_like(x[:1])
    probe[0, first.start] = 1.0
    probe[0, first.start + spec["hand_cards"]] = 3 / spec["max_cards"]
    probe[0, first.start + spec["hand_total"]] = 16 / 21
    with torch.no_grad():
        weight = features.hand_net[0].weight.clone()
        features.hand_net[0].weight.zero_()
        features.hand_net[0].bias.zero_()
        features.hand_net[0].weight[0, spec["hand_stride"] + 3] = 1.0  # card count 3
        features.hand_net[0].weight[1, spec["hand_stride"] + 6 + 16] = 1.0  # visible total 16
        features.hand_net[0].weight[2, spec["hand_stride"] + 6 + 17] = 1.0  # visible total 17
        summary = features(probe)[0, -16:]
        features.hand_net[0].weight.copy_(weight)
    assert summary[:3].tolist() == pytest.approx([np.tanh(1.0), np.tanh(1.0), 0.0])
    with pytest.raises(ValueError, match="hand_pool"):
        PontoonFeatures(venv.single_observation_space, spec=spec, hand_pool=-1)


@pytest.mark.parametrize("preset", ["pagat", "vingt_un_1800"])
def test_the_onehot_hand_counts_cards_on_the_encoders_scale(preset: str) -> None:
    """The one-hot card count is the hand's own count (5 or more in the last column) whether the
    encoder scales counts by 5 (five-card trick) or by 22 (``vingt_un_1800`` has no trick)."""
    from gymnasium.spaces import Box

    from helpers import random_play_views
    from pontoon_env.encoding import ObservationEncoder
    from pontoon_env.game.rules import make_rules

    rules = make_rules(preset)
    encoder = ObservationEncoder(rules, 2)
    assert encoder.max_cards == (5 if rules.five_card_trick else 22)
    lows, highs = encoder.bounds()
    features = PontoonFeatures(Box(lows, highs), active_onehot=True, spec=feature_spec(encoder))
    turns = [view for view in random_play_views(rules, 200) if view.phase.name == "PLAYER_TURN"]
    counts = [len(view.own_hands[view.active_hand].cards) for view in turns]
    rows = [encoder.encode(view) for view in turns]
    onehot = features.raw(torch.as_tensor(np.stack(rows)))[:, -10:-4]  # totals (32), then cards (6), buys (4)
    assert set(counts) >= {2, 3}
    assert onehot.argmax(1).tolist() == [min(count, 5) for count in counts]
