"""The side the firm acts for: a party of the contract, chosen per matter or (over it) per
contract, of which questions, positions and verdicts speak by its defined name."""
