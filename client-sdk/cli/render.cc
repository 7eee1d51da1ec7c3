#include "client-sdk/cli/render.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <string_view>
#include <tuple>

#include "melee/asl/v1/asl.pb.h"
#include "melee/coc/v1/coc.pb.h"
#include "melee/vv/v1/vv.pb.h"
#include "proto/codec/notation.h"

namespace melee::cli {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;
namespace cocpb = melee::coc::v1;
namespace vvpb = melee::vv::v1;

std::string SeatName(v1::Seat seat) {
  switch (seat) {
    case v1::SEAT_SIDE_A:
      return "side_a";
    case v1::SEAT_SIDE_B:
      return "side_b";
    case v1::SEAT_DIRECTOR:
      return "director";
    case v1::SEAT_SPECTATOR:
      return "spectator";
    default:
      return "nobody";
  }
}

std::string Time(int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &utc);
  return text;
}

std::string Duration(int64_t ms) {
  const int64_t total = std::max<int64_t>(0, ms) / 1000;
  const int64_t days = total / 86400;
  const int64_t hours = total % 86400 / 3600;
  const int64_t minutes = total % 3600 / 60;
  const int64_t secs = total % 60;
  if (days > 0) return std::to_string(days) + "d " + std::to_string(hours) + "h";
  if (hours > 0) return std::to_string(hours) + "h " + std::to_string(minutes) + "m";
  if (minutes > 0) return std::to_string(minutes) + "m " + std::to_string(secs) + "s";
  return std::to_string(secs) + "s";
}

std::string ClockLeft(const v1::SeatClock& clock, const v1::Pace& pace, int64_t now) {
  std::string text;
  const int64_t bank = static_cast<int64_t>(clock.bank_left_ms());
  if (clock.vacation_until_unix_ms() != 0) {
    text += "on vacation until " + Time(clock.vacation_until_unix_ms()) + ", its clock stopped; ";
  }
  if (clock.step_deadline_unix_ms() == 0) {
    text += "bank " + Duration(bank);
  } else if (now < clock.step_deadline_unix_ms()) {
    text += Duration(clock.step_deadline_unix_ms() - now) + " left for this step, then a bank of " +
            Duration(bank) + " (all gone at " + Time(clock.final_deadline_unix_ms()) + ")";
  } else if (now < clock.final_deadline_unix_ms()) {
    text += "its step's time is over; " + Duration(clock.final_deadline_unix_ms() - now) +
            " of its bank left (until " + Time(clock.final_deadline_unix_ms()) + ")";
  } else {
    text += "its time ran out at " + Time(clock.final_deadline_unix_ms());
  }
  if (pace.vacation_days() != 0) {
    text += "; " + std::to_string(clock.vacation_days_left()) + " vacation days left";
  }
  return text;
}

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

std::string Join(const google::protobuf::RepeatedPtrField<std::string>& values,
                 std::string_view separator = ", ") {
  std::string out;
  for (const std::string& value : values) {
    if (!out.empty()) out += separator;
    out += value;
  }
  return out;
}

// One clock event in words.
std::string ClockLine(const v1::ClockEvent& clock) {
  const std::string seat = SeatName(clock.seat());
  switch (clock.kind()) {
    case v1::CLOCK_EVENT_KIND_BANK_DRAWN:
      return seat + " answered " + Duration(static_cast<int64_t>(clock.drawn_ms())) +
             " after its step's time: drawn from its bank, " +
             Duration(static_cast<int64_t>(clock.bank_left_ms())) + " left";
    case v1::CLOCK_EVENT_KIND_TIME_EXPIRED:
      return seat + "'s time for its " + clock.step() + " ran out" +
             (clock.action() == "match_lost" ? ": it lost the match on time, " +
                                                   SeatName(clock.winner()) + " won"
                                             : ": the rules default is taken");
    case v1::CLOCK_EVENT_KIND_VACATION_STARTED:
      return seat + " is on vacation until " + Time(clock.vacation_until_unix_ms()) + " (" +
             std::to_string(clock.vacation_days()) + " days; " +
             std::to_string(clock.vacation_days_left()) + " left): its clock stops";
    case v1::CLOCK_EVENT_KIND_VACATION_ENDED:
      return seat + " is back from vacation (" + std::to_string(clock.vacation_days_left()) +
             " vacation days left): its clock runs again";
    default:
      return seat + "'s clock changed";
  }
}

// Each seat's clock, with the time left counted from `now`.
void PrintClocks(std::ostream& out, const v1::MatchView& view, int64_t now) {
  const v1::Pace& pace = view.settings().pace();
  out << "Clocks (pace " << (pace.preset().empty() ? "explicit" : pace.preset())
      << "; when time runs out: "
      << (pace.on_expiry() == v1::ON_EXPIRY_LOSS ? "the match is lost" : "the rules default")
      << "):\n";
  out << "  side_a: " << ClockLeft(view.side_a_clock(), pace, now) << "\n";
  out << "  side_b: " << ClockLeft(view.side_b_clock(), pace, now) << "\n";
}

// "G1 4-6-7 german", "G2 HS of 4-6-7 broken" (docs/counter-notation.md); a concealed unit this
// seat may not identify is "R2 ?".
std::string UnitLabel(const aslpb::Unit& unit, bool hidden) {
  if (hidden || unit.kind() == aslpb::UNIT_KIND_UNSPECIFIED) return unit.id() + " ?";
  return unit.id() + " " + proto::AslNotationOf(unit);
}

std::string Units(const aslpb::SideSetup& part) {
  std::string out;
  for (const aslpb::Unit& unit : part.units()) {
    if (!out.empty()) out += ", ";
    out += UnitLabel(unit, false);
  }
  return out.empty() ? "no units" : out;
}

std::string Attacks(const v1::Declaration& declaration) {
  std::string out;
  for (const aslpb::AttackOrder& attack : declaration.asl().attacks()) {
    if (!out.empty()) out += "; ";
    out += Join(attack.attackers(), "+") + " -> " + Join(attack.targets(), "+");
  }
  return out.empty() ? "no attack" : out;
}

// Indents every line of `text` after the first by `indent`.
std::string Indented(const std::string& text, const std::string& indent) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += indent;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

// "G1 4-6-5 squad \"Rifle\", Schmidt 1-3-1 (-1) leader": a vv set-up part's units.
std::string VvUnits(const vvpb::SideSetup& part) {
  std::string out;
  for (const vvpb::Unit& unit : part.units()) {
    out += (out.empty() ? "" : ", ") + unit.id() + " " + proto::VvNotationOf(unit);
  }
  return out.empty() ? "no units" : out;
}

// "soviet_smg Soviet SMG Section (7 figures)": a coc set-up part's units.
std::string CocUnits(const cocpb::SideSetup& part) {
  std::string out;
  for (const cocpb::Unit& unit : part.units()) {
    int figures = 0;
    for (const cocpb::Team& team : unit.teams()) figures += team.figures();
    out += (out.empty() ? "" : ", ") + unit.id() + (unit.name().empty() ? "" : " " + unit.name()) +
           (unit.vehicle() ? " (vehicle)" : " (" + std::to_string(figures) + " figures)");
  }
  return out.empty() ? "no units" : out;
}

}  // namespace

void PrintEvent(std::ostream& out, const v1::MatchEvent& event) {
  out << "  #" << event.seq() << " ";
  if (event.has_match_opened()) {
    out << "match opened (" << event.match_opened().settings().ruleset() << " "
        << event.match_opened().ruleset_version() << ")";
  } else if (event.has_setup_submitted() && event.setup_submitted().has_vv()) {
    const vvpb::SideSetup& part = event.setup_submitted().vv();
    out << SeatName(event.setup_submitted().seat()) << " entered its units: " << VvUnits(part);
    if (!part.target().name().empty()) out << "; target hex " << part.target().name();
  } else if (event.has_setup_submitted() && event.setup_submitted().has_coc()) {
    out << SeatName(event.setup_submitted().seat())
        << " entered its units: " << CocUnits(event.setup_submitted().coc());
  } else if (event.has_setup_submitted()) {
    out << SeatName(event.setup_submitted().seat())
        << " entered its units: " << Units(event.setup_submitted().asl());
    if (!event.setup_submitted().asl().location().name().empty()) {
      out << " in " << event.setup_submitted().asl().location().name();
    }
  } else if (event.has_setup_confirmed()) {
    out << SeatName(event.setup_confirmed().seat()) << " confirmed the set-up";
  } else if (event.has_units_updated()) {
    std::string updates;
    for (const v1::UnitUpdate& update : event.units_updated().updates()) {
      updates += (updates.empty() ? "" : ", ") + proto::UnitUpdateText(update);
    }
    out << SeatName(event.units_updated().seat()) << " reported: " << updates;
  } else if (event.has_locations_ordered()) {
    out << SeatName(event.locations_ordered().seat())
        << " (the ATTACKER) ordered this CCPh's Locations: "
        << Join(event.locations_ordered().locations());
  } else if (event.has_result_recorded()) {
    const v1::ResultRecorded& result = event.result_recorded();
    static const char* const kOutcomes[] = {"none", "side_a won", "side_b won", "a draw"};
    const int outcome = result.outcome() >= 0 && result.outcome() <= 3 ? result.outcome() : 0;
    out << SeatName(result.seat()) << " recorded the result of "
        << (result.combat() == 0 ? std::string("the match")
                                 : "close combat " + std::to_string(result.combat()))
        << ": " << kOutcomes[outcome];
    if (!result.note().empty()) out << " (\"" << result.note() << "\")";
  } else if (event.has_director_flag()) {
    out << SeatName(event.director_flag().seat()) << " flagged event #"
        << event.director_flag().seq() << " for the director";
    if (!event.director_flag().comment().empty()) {
      out << ": \"" << event.director_flag().comment() << "\"";
    }
  } else if (event.has_vv() && !event.vv().text().empty() &&
             !event.has_declaration_sealed()) {
    out << Indented(event.vv().text(), "      ");
  } else if (event.has_coc() && !event.coc().text().empty() &&
             !event.has_declaration_sealed()) {
    out << Indented(event.coc().text(), "      ");
  } else if (event.has_declaration_sealed()) {
    out << SeatName(event.declaration_sealed().seat()) << " sealed its declaration";
  } else if (event.has_declarations_revealed()) {
    out << "declarations revealed — side_a: "
        << Attacks(event.declarations_revealed().side_a())
        << "; side_b: " << Attacks(event.declarations_revealed().side_b());
  } else if (event.has_choice_requested()) {
    const v1::ChoiceRequested& choice = event.choice_requested();
    out << "choice " << choice.choice_id() << " for " << SeatName(choice.seat()) << " ("
        << choice.rule_ref() << "): " << choice.prompt()
        << " Options: " << (choice.options().empty() ? "none" : Join(choice.options()));
    if (choice.deadline_unix_ms() != 0) {
      out << ". Answer by " << Time(choice.deadline_unix_ms());
    }
  } else if (event.has_match_ended()) {
    out << "the close combat is over";
    if (!event.match_ended().summary().empty()) out << ": " << event.match_ended().summary();
  } else if (event.has_head_signed()) {
    out << "the server signed the log's head after event #" << event.head_signed().seq()
        << " (docs/fair-play.md)";
  } else if (event.has_clock()) {
    out << ClockLine(event.clock());
  } else if (event.has_asl() && !event.asl().text().empty()) {
    out << Indented(event.asl().text(), "      ");
  } else {
    out << "(an event this client does not describe)";
  }
  if (event.by_default()) out << " [the deadline passed: the rules default was taken]";
  if (event.dice_step() != 0) {
    out << "\n      (dice step " << event.dice_step()
        << " closed: its seed is revealed and checks against the match's commitment)";
  }
  out << "\n";
}

void PrintView(std::ostream& out, const v1::MatchView& view, int64_t now_unix_ms) {
  static const char* const kStages[] = {"unknown", "set-up", "playing", "over"};
  const int stage = view.stage() >= 0 && view.stage() <= 3 ? view.stage() : 0;
  out << "Match " << view.match_id();
  if (!view.settings().title().empty()) out << " \"" << view.settings().title() << "\"";
  out << " (" << view.settings().ruleset() << "), seen by " << SeatName(view.seat())
      << ": " << kStages[stage] << ", last event #" << view.seq() << "\n";
  if (!view.settings().side_a_name().empty() || !view.settings().side_b_name().empty()) {
    out << "Players: side_a " << view.settings().side_a_name() << ", side_b "
        << view.settings().side_b_name() << "\n";
  }
  if (view.stage() == v1::STAGE_SETUP) {
    for (const auto& [name, part, status] :
         {std::tuple{"side_a", &view.side_a_setup(), &view.side_a()},
          std::tuple{"side_b", &view.side_b_setup(), &view.side_b()}}) {
      out << "  " << name << ": ";
      if (!status->submitted()) {
        out << "no units entered yet\n";
        continue;
      }
      const vvpb::SideSetup& vv_part =
          std::string_view(name) == "side_a" ? view.side_a_vv_setup() : view.side_b_vv_setup();
      const cocpb::SideSetup& coc_part =
          std::string_view(name) == "side_a" ? view.side_a_coc_setup() : view.side_b_coc_setup();
      out << (view.settings().ruleset() == "vv"    ? VvUnits(vv_part)
              : view.settings().ruleset() == "coc" ? CocUnits(coc_part)
                                                   : Units(*part))
          << (status->confirmed() ? " (confirmed)" : " (not confirmed)") << "\n";
    }
  } else if (view.has_asl()) {
    const aslpb::AslView& asl = view.asl();
    out << "  Location " << asl.location().name() << ", ATTACKER " << SeatName(asl.attacker())
        << (asl.melee() ? ", in Melee" : "") << "\n";
    for (v1::Seat side : {v1::SEAT_SIDE_A, v1::SEAT_SIDE_B}) {
      out << "  " << SeatName(side) << ":";
      bool any = false;
      for (const aslpb::ViewedUnit& unit : asl.units()) {
        if (unit.unit().owner() != side) continue;
        out << (any ? ", " : " ") << UnitLabel(unit.unit(), unit.hidden());
        if (unit.presence() == aslpb::PRESENCE_ELIMINATED) out << " (eliminated)";
        if (unit.presence() == aslpb::PRESENCE_CAPTURED) out << " (captured)";
        if (unit.presence() == aslpb::PRESENCE_WITHDRAWN) out << " (withdrawn)";
        any = true;
      }
      out << (any ? "\n" : " none\n");
    }
    if (asl.has_pending()) {
      out << "  Your choice " << asl.pending().id() << ": select from "
          << (asl.pending().options().empty() ? "nothing" : Join(asl.pending().options()))
          << " (" << asl.pending().min_selected() << ".." << asl.pending().max_selected()
          << " units): melee choose --choice " << asl.pending().id() << " --select ...\n";
    }
  }
  if (view.has_vv()) {
    const vvpb::VvView& vv = view.vv();
    out << "  " << SeatName(vv.attacker()) << " assaults " << vv.target().name() << " from "
        << vv.source_hex() << " (" << vv.variant() << ")\n";
    for (const vvpb::ViewedUnit& unit : vv.units()) {
      out << "    " << unit.unit().id() << " " << proto::VvNotationOf(unit.unit()) << " ("
          << SeatName(unit.unit().owner()) << ")" << (unit.eliminated() ? " eliminated" : "")
          << (unit.in_target() && !unit.eliminated() ? " in " + vv.target().name() : "") << "\n";
    }
    if (vv.has_report() && !vv.report().called_off()) {
      out << "  Assault: " << vv.report().assault_apfp() << " vs " << vv.report().defence_apfp()
          << " (" << vv.report().odds() << "), Kill # " << vv.report().kill_number()
          << ", final DR " << vv.report().final_dr() << ": "
          << (vv.report().success() ? "succeeded" : "failed") << "; Casualty Points side_a "
          << vv.side_a_cp() << ", side_b " << vv.side_b_cp() << "\n";
    }
  }
  if (view.has_coc()) {
    const cocpb::CocView& coc = view.coc();
    for (const cocpb::ViewedUnit& unit : coc.units()) {
      int figures = 0;
      int shock = 0;
      for (const cocpb::Team& team : unit.unit().teams()) {
        figures += team.figures();
        shock += team.shock();
      }
      out << "    " << unit.unit().id() << " " << unit.unit().name() << " ("
          << SeatName(unit.unit().side()) << "): "
          << (unit.unit().vehicle()
                  ? std::to_string(unit.unit().vehicle_shock()) + " Shock"
                  : std::to_string(figures) + " figures, " + std::to_string(shock) + " Shock")
          << (unit.gone() ? ", left play" : "") << (unit.broken() ? ", Broken" : "")
          << (unit.pinned() && !unit.broken() ? ", Pinned" : "") << "\n";
    }
    out << "  Force Morale: side_a " << coc.side_a_force_morale() << ", side_b "
        << coc.side_b_force_morale() << "\n";
    if (coc.has_report()) {
      out << "  Combat " << coc.report().combat() << ", round " << coc.report().round()
          << ": side_a " << coc.report().side_a().pool().dice() << " Combat Dice, side_b "
          << coc.report().side_b().pool().dice() << "\n";
    }
  }
  // The forces (docs/forces.md): every unit the match holds, where it is and as it is now.
  if (view.side_a_force_size() + view.side_b_force_size() > 0) {
    out << "  Forces (CCPh " << view.ccph() << "):\n";
    for (const auto* force : {&view.side_a_force(), &view.side_b_force()}) {
      if (force->empty()) continue;
      out << "    " << SeatName(force->Get(0).owner()) << ":";
      bool first = true;
      for (const v1::ForceUnit& unit : *force) {
        out << (first ? " " : ", ") << unit.id() << " ";
        first = false;
        if (unit.hidden()) {
          out << "?";
        } else if (unit.has_asl()) {
          out << proto::AslNotationOf(unit.asl());
        } else if (unit.has_vv()) {
          out << proto::VvNotationOf(unit.vv());
        } else if (unit.has_coc()) {
          out << unit.coc().name();
        }
        switch (unit.fate()) {
          case v1::FORCE_FATE_ELIMINATED:
            out << " (eliminated)";
            break;
          case v1::FORCE_FATE_CAPTURED:
            out << " (captured)";
            break;
          case v1::FORCE_FATE_WITHDRAWN:
            out << " (withdrawn)";
            break;
          case v1::FORCE_FATE_RECOMBINED:
            out << " (recombined)";
            break;
          default:
            out << " in " << (unit.location().empty() ? "no Location" : unit.location());
        }
      }
      out << "\n";
    }
  }
  if (view.has_location_order()) {
    const v1::LocationOrder& order = view.location_order();
    out << "  Order of Locations (" << SeatName(order.attacker()) << ", A11.12): ";
    if (!order.resolved().empty()) out << "resolved " << Join(order.resolved());
    if (!order.resolved().empty() && !order.remaining().empty()) out << "; ";
    if (!order.remaining().empty()) out << "next " << Join(order.remaining());
    out << "\n";
  }
  if (view.waiting_for().empty()) {
    out << "Waiting for: nobody\n";
  } else {
    out << "Waiting for: " << Join(view.waiting_for(), "; ") << "\n";
  }
  if (view.settings().has_pace()) {
    PrintClocks(out, view, now_unix_ms != 0 ? now_unix_ms : NowUnixMs());
  } else if (view.deadline_unix_ms() != 0) {
    out << "Deadline: " << Time(view.deadline_unix_ms()) << " (then the rules default)\n";
  }
  for (const v1::MatchResult& result : view.results()) {
    out << "Result of " << (result.combat() == 0 ? std::string("the match")
                                                 : "close combat " +
                                                       std::to_string(result.combat()))
        << ": " << result.status() << "\n";
  }
  if (view.has_result()) {
    out << "Result: " << SeatName(view.result().winner()) << " won: "
        << SeatName(view.result().loser()) << " " << view.result().reason() << " (event #"
        << view.result().seq() << ")\n";
  }
}

std::string Hex(const std::string& bytes) {
  static const char* const kDigits = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : bytes) {
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 15];
  }
  return hex;
}

}  // namespace melee::cli
