// The conversation benchmark's callers: what they say, as data. A caller turn is text with pauses
// written in it as |ms| (a pause of that many ms of silence mid-utterance, after a filler, a
// connective or a group of digits); backchannels and interruptions are said over the agent's reply.
// Sentences end with their mark, as a punctuating recogniser (Deepgram's punctuate=true) writes them;
// the parts before a pause have none.
// 70 complete questions + 50 answers with pauses + 20 digit groups + 35 backchannels + 35
// interruptions = 210 caller turns.

export const COMPLETE = [
  "What time do you open on Saturdays?",
  "Can I book a table for four people tonight?",
  "Do you deliver to the east side of town?",
  "How much does the monthly plan cost?",
  "Is the clinic open on public holidays?",
  "Where can I park when I visit you?",
  "Can I change the date of my appointment?",
  "Do you have any vegetarian dishes?",
  "How long does shipping usually take?",
  "What is your refund policy?",
  "Can I pay by card over the phone?",
  "Is there a discount for students?",
  "When will my order arrive?",
  "Do I need to bring anything to my first visit?",
  "Can you send me the invoice by email?",
  "Are dogs allowed inside the shop?",
  "How do I reset my password?",
  "Is the parking free for customers?",
  "Can I speak to the manager please?",
  "What documents do I need to open an account?",
  "Do you repair bicycles as well?",
  "How early should I arrive for the tour?",
  "Can I cancel my subscription at any time?",
  "Is breakfast included in the room price?",
  "What is the fastest way to get to your office?",
  "Do you have the blue jacket in a medium size?",
  "Can my wife pick up the parcel for me?",
  "Are you hiring at the moment?",
  "Is there a charge for late cancellation?",
  "How many people fit in the large meeting room?",
  "Could you tell me my current balance?",
  "Do you offer gift cards?",
  "Can I bring my own wine to dinner?",
  "What are the opening hours during the week?",
  "Is the doctor available on Thursday morning?",
  "How do I update my delivery address?",
  "Do you accept returns without a receipt?",
  "Can I add a second driver to the rental?",
  "Is there a lift in the building?",
  "Why was I charged twice this month?",
  "Can you check whether my payment went through?",
  "What happens if I miss my appointment?",
  "Do you have anything available next Tuesday?",
  "How long is the warranty on the washing machine?",
  "Can I get a copy of my contract?",
  "Are there any seats left for the evening show?",
  "Do you install the furniture as well?",
  "Is the swimming pool heated in winter?",
  "How do I know that my booking is confirmed?",
  "Can I order a cake for a birthday on Friday?",
  "Where is my nearest branch?",
  "Do you have a children's menu?",
  "Can I move my flight to the next day?",
  "Is the museum accessible by wheelchair?",
  "How much is a taxi from the station to the hotel?",
  "Can you remind me of my booking reference?",
  "Do you sell tickets at the door?",
  "What time is the last delivery slot today?",
  "Could you repeat the price of the premium plan?",
  "Can I come in without an appointment?",
  "Is my prescription ready to collect?",
  "Do you open earlier on Mondays?",
  "Can I add a night to my stay?",
  "What is included in the basic service?",
  "How do I get a replacement card?",
  "Is there a waiting list for the course?",
  "Can I pay in two instalments?",
  "Do you have a quieter table near the window?",
  "When does the sale end?",
  "What should I do if the heating stops working?",
];

export const PAUSED = [
  "Um |800| I would like to book a table for Friday.",
  "I need to change |600| the delivery address.",
  "So |1000| my question is about the bill.",
  "Uh |500| can I speak to someone about my order?",
  "I was wondering |700| whether you are open late tonight.",
  "My name is |900| Sarah Miller.",
  "I ordered a sofa |1200| and it has not arrived.",
  "Well |400| I think there is a mistake on my invoice.",
  "And |1100| could you also send me a receipt?",
  "The problem is |800| the machine keeps beeping.",
  "I live at |1000| twenty two Station Road.",
  "Um |600| I want to cancel my booking |900| for next week.",
  "It is about |500| my appointment on Monday.",
  "I would like |1200| two tickets for the matinee.",
  "My email is |700| sarah at example dot com.",
  "Let me think |1000| maybe Thursday afternoon.",
  "Uh |400| yes |800| that would be fine.",
  "I bought it |600| about three weeks ago.",
  "We are |900| a group of six adults |500| and two children.",
  "The order number |1100| is on the receipt somewhere.",
  "Because |700| the last time it took a month.",
  "So basically |1200| I need a new charger.",
  "I am calling about |800| the job advert.",
  "Um |1000| I am not sure which plan I have.",
  "It started |400| yesterday evening.",
  "Could you |600| tell me the total price?",
  "My date of birth is |900| the third of May |600| nineteen eighty.",
  "And then |500| it just stopped working.",
  "The reference is |1100| on the email you sent.",
  "I think |700| the blue one is better.",
  "Uh |1200| sorry, I was looking for my card.",
  "My postcode is |800| S W one.",
  "I need it |1000| before the weekend.",
  "We would prefer |400| a table outside.",
  "The address is |600| fourteen |700| Mill Lane.",
  "Well |900| it depends on the price.",
  "If possible |500| in the morning.",
  "Um |1100| can you hold on a second?",
  "The size is |700| a large.",
  "And my husband |1200| will come as well.",
  "It was |800| the day before yesterday.",
  "For the account |1000| under my maiden name.",
  "I tried |400| turning it off and on.",
  "So I was charged |600| forty pounds |1000| instead of twenty.",
  "The colour was |900| dark green.",
  "Uh |500| my flight number is on the ticket.",
  "It is for |1100| my daughter's birthday.",
  "And |700| I also need a parking space.",
  "I am looking for |1200| the cheapest option.",
  "Um |800| I think that is everything.",
];

export const DIGITS = [
  "My number is |900| 4 1 5 |600| 5 5 5 |500| 0 1 2 3",
  "The order number is |700| 7 7 4 |800| 2 1 9",
  "My card ends in |1000| 4 4 |400| 1 2",
  "The code is |600| 3 9 |900| 0 6",
  "My account number is |1200| 1 2 3 4 |700| 5 6 7 8",
  "The reference is |500| 8 8 1 |1100| 6 4 0",
  "My phone number is |800| 0 7 7 |600| 9 0 0 |1000| 1 2 3",
  "The booking number is |400| 5 5 2 |900| 7 1",
  "It is |1100| 2 0 |500| 4 9 |700| 1 1",
  "My member number is |700| 6 6 |1200| 3 0 8",
  "Extension |900| 4 1 |400| 2",
  "The parcel number is |1000| 9 2 7 |800| 4 4 |600| 1 0",
  "My PIN is |500| 7 |1000| 3 |600| 9 |400| 1",
  "The flight is |800| B A |700| 2 9 0",
  "The postcode is |1200| 9 4 1 |500| 0 5",
  "My policy number is |600| 3 3 1 |1100| 8 7 5",
  "The room number is |400| 4 |900| 1 2",
  "Call me on |1000| 2 1 2 |700| 5 5 5 |800| 0 1 6 6",
  "The serial number is |900| 1 0 |500| 7 7 |1200| 3",
  "My date of birth is |700| 1 2 |600| 0 5 |1100| 1 9 8 0",
];

export const BACKCHANNELS = [
  "mm-hmm", "okay", "right", "yeah", "uh-huh", "mm-hmm", "okay", "right", "yeah", "I see",
  "mm-hmm", "okay", "right", "yeah", "got it", "mm-hmm", "okay", "right", "yeah", "sure",
  "mm-hmm", "okay", "right", "yeah", "uh-huh", "mm-hmm", "okay", "right", "yeah", "alright",
  "mm-hmm", "okay", "right", "yeah", "yes",
];

export const INTERRUPTIONS = [
  "wait, stop.",
  "no, that's wrong.",
  "hold on, that's not what I asked.",
  "sorry, I need to change the date.",
  "no no, the other address.",
  "wait, can you repeat the price?",
  "stop, I want to speak to a person.",
  "no, I said Thursday.",
  "excuse me, that is not my order.",
  "hang on, I missed that.",
  "wait, stop.",
  "no, that's wrong.",
  "actually, I changed my mind.",
  "sorry, what was the first option?",
  "no, the table is for six.",
  "wait, is that including tax?",
  "stop, that's too expensive.",
  "hold on a second please.",
  "no, my name is spelled differently.",
  "sorry to interrupt, but I am in a hurry.",
  "wait, stop.",
  "no, that's wrong.",
  "just a moment, let me find a pen.",
  "no, I already paid for that.",
  "wait, which branch did you say?",
  "stop, I don't need the details.",
  "hold on, the line is bad.",
  "no, that is the old number.",
  "sorry, can you slow down?",
  "wait, what about delivery?",
  "wait, stop.",
  "no, that's wrong.",
  "no, I wanted the large one.",
  "hang on, my son wants to ask something.",
  "wait, I have a different question.",
];

export type TurnKind = "complete" | "paused" | "digits" | "backchannel" | "interruption";

/** One piece of a caller turn: words, then a silence before the next piece (0 after the last). */
export interface Part {
  text: string;
  pauseAfterMs: number;
}

export interface CallerTurn {
  kind: TurnKind;
  parts: Part[];
}

/** A caller turn and, over the agent's reply to it, perhaps a backchannel or an interruption. */
export interface Exchange {
  turn: CallerTurn;
  interjection: CallerTurn | null;
}

/** "words |ms| more words" into parts. */
export function parts(text: string): Part[] {
  const pieces = text.split(/\|(\d+)\|/);
  const out: Part[] = [];
  for (let i = 0; i < pieces.length; i += 2) out.push({ text: pieces[i].trim(), pauseAfterMs: i + 1 < pieces.length ? Number(pieces[i + 1]) : 0 });
  return out;
}

/**
 * The whole corpus in the order it runs: primary turns interleaved (complete, paused, complete,
 * digits…) and every second one answered over by a backchannel or an interruption, alternately, so
 * that any prefix (`--turns N`) has a share of each kind.
 */
export function schedule(): Exchange[] {
  const queues: Record<"complete" | "paused" | "digits", string[]> = { complete: [...COMPLETE], paused: [...PAUSED], digits: [...DIGITS] };
  const order: ("complete" | "paused" | "digits")[] = ["complete", "paused", "complete", "digits", "complete", "paused", "paused"];
  const interjections = { backchannel: [...BACKCHANNELS], interruption: [...INTERRUPTIONS] };
  const exchanges: Exchange[] = [];
  for (let i = 0; queues.complete.length + queues.paused.length + queues.digits.length > 0; i++) {
    let kind = order[i % order.length];
    if (!queues[kind].length) kind = (["complete", "paused", "digits"] as const).find((k) => queues[k].length)!;
    const turn: CallerTurn = { kind, parts: parts(queues[kind].shift()!) };
    const over = exchanges.length % 4 === 1 ? "backchannel" : exchanges.length % 4 === 3 ? "interruption" : null;
    const said = over ? interjections[over].shift() : undefined;
    exchanges.push({ turn, interjection: over && said ? { kind: over, parts: parts(said) } : null });
  }
  return exchanges;
}

/** The first exchanges holding at least `turns` caller turns. */
export function firstTurns(exchanges: Exchange[], turns: number): Exchange[] {
  const out: Exchange[] = [];
  let count = 0;
  for (const exchange of exchanges) {
    if (count >= turns) break;
    out.push(exchange);
    count += exchange.interjection ? 2 : 1;
  }
  return out;
}
